/*
 * view_values.c - an archive range as the history values live.html reads
 * (view_values.h).  Records are kept as interned strings and numbers until
 * their window is written; a value is made per drain time, as the PMDA
 * would have handed a client that fetched after every drain: thread,
 * frame and stack ids defined at their first use in the file, then the
 * counts (always with their µs, so no rule of the event is needed), and
 * the drain's heat line.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "lib/intern.h"
#include "common/text.h"
#include "json_text_priv.h"
#include "view_values.h"

#define HEAT_MAX	1000	/* slices a heat line may have (the page's bound) */
/* Records one window keeps (64 bytes each): hours of a busy host, and a
 * file the page can still hold; past it the file says so, empty. */
#define VIEW_MAX_RECORDS	(1u << 20)

struct rec {
	uint32_t	host, process, comm, stack;	/* interned */
	uint32_t	pid, tid, gen;
	uint64_t	count, usec;
	double		time;
};

struct heat_rec {
	uint32_t	host;
	unsigned	n;
	double		time;
	uint64_t	*counts;	/* this drain's, slice 0 first */
};

struct heat_last {			/* a host's counters at its last fetch */
	uint32_t	host;
	unsigned	n;
	uint64_t	*values;
};

struct view_values {
	struct intern	names;		/* tags: h host, p process, c comm, s stack */
	struct rec	*recs;
	size_t		nrecs, caprecs;
	struct heat_rec	*heat;
	size_t		nheat, capheat;
	struct heat_last *last;
	size_t		nlast, caplast;
	uint64_t	dropped;	/* records past VIEW_MAX_RECORDS */
};

struct view_values *
view_values_new(void)
{
	struct view_values	*v = calloc(1, sizeof(*v));

	if (v != NULL && intern_init(&v->names) < 0) {
		free(v);
		return NULL;
	}
	return v;
}

void
view_values_free(struct view_values *v)
{
	if (v == NULL)
		return;
	view_values_forget(v, NULL);
	intern_free(&v->names);
	free(v->recs);
	free(v->heat);
	free(v->last);
	free(v);
}

static int
name_id(struct view_values *v, const char *s, char tag, uint32_t *id)
{
	s = s ? s : "";
	return intern_put(&v->names, s, strlen(s), tag, id);
}

int
view_values_add(struct view_values *v, const struct stack_sample *s)
{
	struct rec	r = { .pid = s->pid, .tid = s->tid, .gen = s->gen, .count = s->count,
			      .usec = s->value_us, .time = s->time };

	if (v->nrecs >= VIEW_MAX_RECORDS)
		return v->dropped++ == 0 ? 1 : 0;
	if (name_id(v, s->host, 'h', &r.host) < 0 || name_id(v, s->process, 'p', &r.process) < 0 ||
	    name_id(v, s->thread, 'c', &r.comm) < 0 || name_id(v, s->stack, 's', &r.stack) < 0 ||
	    array_reserve(&v->recs, &v->caprecs, v->nrecs + 1) < 0)
		return -ENOMEM;
	v->recs[v->nrecs++] = r;
	return 0;
}

/* The drain's slices: this fetch's counters less the last ones; a
 * restart, a new slice count or a counter going back is a baseline. */
int
view_values_heat(struct view_values *v, const struct heat_counters *c)
{
	struct heat_last	*l = NULL;
	struct heat_rec		h;
	uint32_t		host;
	unsigned		i;
	bool			base;

	if (v->dropped || c->n == 0 || c->n > HEAT_MAX || name_id(v, c->host, 'h', &host) < 0)
		return c->n == 0 || c->n > HEAT_MAX ? 0 : -ENOMEM;
	for (i = 0; i < v->nlast && l == NULL; i++)
		if (v->last[i].host == host)
			l = &v->last[i];
	if (l == NULL) {
		if (array_reserve(&v->last, &v->caplast, v->nlast + 1) < 0)
			return -ENOMEM;
		l = &v->last[v->nlast++];
		*l = (struct heat_last){ host, 0, NULL };
	}
	base = c->restart || l->n != c->n;
	for (i = 0; !base && i < c->n; i++)
		base = c->values[i] < l->values[i];
	if (!base) {
		if (array_reserve(&v->heat, &v->capheat, v->nheat + 1) < 0 ||
		    (h.counts = malloc(c->n * sizeof(*h.counts))) == NULL)
			return -ENOMEM;
		h.host = host;
		h.n = c->n;
		h.time = c->time;
		for (i = 0; i < c->n; i++)
			h.counts[i] = c->values[i] - l->values[i];
		v->heat[v->nheat++] = h;
	}
	if (l->n != c->n) {
		uint64_t	*nv = realloc(l->values, c->n * sizeof(*nv));

		if (nv == NULL)
			return -ENOMEM;
		l->values = nv;
		l->n = c->n;
	}
	memcpy(l->values, c->values, c->n * sizeof(*l->values));
	return 0;
}

void
view_values_forget(struct view_values *v, const char *host)
{
	size_t	i, k;
	uint32_t id = UINT32_MAX;

	if (host != NULL) {	/* a host never seen holds nothing */
		for (i = 0; i < v->names.count && id == UINT32_MAX; i++)
			if (v->names.entries[i].tag == 'h' && strcmp(v->names.entries[i].name, host) == 0)
				id = (uint32_t)i;
		if (id == UINT32_MAX)
			return;
	}
	for (i = k = 0; i < v->nrecs; i++)
		if (host != NULL && v->recs[i].host != id)
			v->recs[k++] = v->recs[i];
	v->nrecs = k;
	for (i = k = 0; i < v->nheat; i++) {
		if (host != NULL && v->heat[i].host != id)
			v->heat[k++] = v->heat[i];
		else
			free(v->heat[i].counts);
	}
	v->nheat = k;
	for (i = k = 0; i < v->nlast; i++) {
		if (host != NULL && v->last[i].host != id)
			v->last[k++] = v->last[i];
		else
			free(v->last[i].values);
	}
	v->nlast = k;
	v->dropped = 0;
}

/* ---- rendering ---- */

struct event_ref {
	double		time;
	uint32_t	i;		/* into recs or heat */
	bool		heat;
};

static int
event_cmp(const void *a, const void *b)
{
	const struct event_ref	*x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->heat != y->heat)		/* stable: records, then heat, each in order */
		return x->heat ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The ids one file has told the page: file id = index + 1. */
struct told {
	struct intern	threads, frames;
	uint32_t	*stacks;	/* by interned stack: file id, 0 untold */
	uint32_t	nstacks;
};

/* s, as the JSON string body of a value: its lines' \n and the thread
 * line's tab escaped (names were cleaned of control characters). */
static void
json_text(struct membuf *out, const char *s, size_t len)
{
	size_t	i, from = 0;

	membuf_puts(out, "\"");
	for (i = 0; i < len; i++) {
		const char	*esc = s[i] == '\n' ? "\\n" : s[i] == '\t' ? "\\t" :
				       s[i] == '"' ? "\\\"" : s[i] == '\\' ? "\\\\" : NULL;

		if (esc == NULL)
			continue;
		membuf_append(out, s + from, i - from);
		membuf_puts(out, esc);
		from = i + 1;
	}
	membuf_append(out, s + from, len - from);
	membuf_puts(out, "\"");
}

static void
put_time(struct membuf *m, double t)
{
	double		sec = floor(t);
	long long	usec = llround((t - sec) * 1e6);

	if (usec >= 1000000) {
		sec += 1;
		usec -= 1000000;
	}
	membuf_printf(m, "%.0f.%06lld", sec, usec);
}

/* The definitions r needs that the file has not given, into defs; its
 * count into counts. */
static int
put_record(const struct view_values *v, const struct rec *r, struct told *t,
	   struct membuf *defs, struct membuf *counts, struct membuf *tmp)
{
	const char	*comm = v->names.entries[r->comm].name;
	const char	*proc = v->names.entries[r->process].name;
	const char	*stack = v->names.entries[r->stack].name, *p, *end;
	uint32_t	tid, fid, before;

	membuf_reset(tmp);
	membuf_printf(tmp, "%u", r->pid);
	if (r->gen)
		membuf_printf(tmp, ".%u", r->gen);
	membuf_printf(tmp, " %u ", r->tid);
	text_clean(tmp, comm);
	membuf_puts(tmp, "\t");
	text_clean(tmp, proc);
	if (tmp->failed)
		return -ENOMEM;
	before = (uint32_t)t->threads.count;
	if (intern_put(&t->threads, tmp->data, tmp->len, 't', &tid) < 0)
		return -ENOMEM;
	if (tid == before) {
		membuf_printf(defs, "t %u ", tid + 1);
		membuf_append(defs, tmp->data, tmp->len);
		membuf_puts(defs, "\n");
	}
	if (t->stacks[r->stack] == 0) {
		/* frames as stack_path splits them: the non-empty ones */
		membuf_reset(tmp);
		for (p = stack; *p; p = *end ? end + 1 : end) {
			struct membuf	name;

			end = strchr(p, ';');
			end = end ? end : p + strlen(p);
			if (end == p)
				continue;
			membuf_init(&name);
			membuf_append(&name, p, (size_t)(end - p));
			membuf_append(&name, "", 1);
			if (name.failed) {
				membuf_free(&name);
				return -ENOMEM;
			}
			before = (uint32_t)t->frames.count;
			if (intern_put(&t->frames, name.data, strlen(name.data), 'f', &fid) < 0) {
				membuf_free(&name);
				return -ENOMEM;
			}
			if (fid == before) {
				membuf_printf(defs, "f %u ", fid + 1);
				text_clean(defs, name.data);
				membuf_puts(defs, "\n");
			}
			membuf_printf(tmp, "%s%u", tmp->len ? "," : "", fid + 1);
			membuf_free(&name);
		}
		t->stacks[r->stack] = ++t->nstacks;
		membuf_printf(defs, "s %u ", t->nstacks);
		membuf_append(defs, tmp->data, tmp->len);
		membuf_puts(defs, "\n");
	}
	membuf_printf(counts, "%u %u:%llu:%llu\n", tid + 1, t->stacks[r->stack],
		      (unsigned long long)r->count, (unsigned long long)r->usec);
	return tmp->failed || defs->failed || counts->failed ? -ENOMEM : 0;
}

static void
put_heat(struct membuf *m, const struct heat_rec *h)
{
	membuf_puts(m, "h ");
	put_time(m, h->time);
	membuf_printf(m, " %u", h->n);
	for (unsigned i = 0; i < h->n; i++)
		membuf_printf(m, " %llu", (unsigned long long)h->counts[i]);
	membuf_puts(m, "\n");
}

static int
render_values(const struct view_values *v, const struct event_ref *ev, size_t n,
	      struct told *t, struct membuf *out)
{
	struct membuf	defs, counts, tmp;
	size_t		i = 0, j;
	int		sts = 0;

	membuf_init(&defs);
	membuf_init(&counts);
	membuf_init(&tmp);
	while (i < n && sts == 0) {
		membuf_reset(&defs);
		membuf_reset(&counts);
		membuf_puts(&defs, "drains 1 ");
		put_time(&defs, ev[i].time);
		membuf_puts(&defs, " hz 1000000\n");
		for (j = i; j < n && ev[j].time == ev[i].time && sts == 0; j++) {
			if (ev[j].heat)
				put_heat(&counts, &v->heat[ev[j].i]);
			else
				sts = put_record(v, &v->recs[ev[j].i], t, &defs, &counts, &tmp);
		}
		membuf_append(&defs, counts.data, counts.len);
		if (defs.failed) {
			sts = -ENOMEM;
			break;
		}
		/* no trailing newline, as the PMDA writes them */
		membuf_puts(out, i ? ",\n" : "\n");
		json_text(out, defs.data, defs.len - 1);
		i = j;
	}
	membuf_free(&defs);
	membuf_free(&counts);
	membuf_free(&tmp);
	return sts;
}

int
view_values_render(const struct view_values *v, const struct profile *p, const char *event,
		   const struct data_gap *g, size_t ng, struct membuf *out)
{
	struct event_ref	*ev;
	struct told		t = { 0 };
	size_t			i, n = 0;
	int			sts;

	ev = calloc(v->nrecs + v->nheat + 1, sizeof(*ev));
	t.stacks = calloc(v->names.count + 1, sizeof(*t.stacks));
	if (ev == NULL || t.stacks == NULL || intern_init(&t.threads) < 0) {
		free(ev);
		free(t.stacks);
		return -ENOMEM;
	}
	if (intern_init(&t.frames) < 0) {
		intern_free(&t.threads);
		free(ev);
		free(t.stacks);
		return -ENOMEM;
	}
	for (i = 0; i < v->nrecs; i++) {
		const struct rec *r = &v->recs[i];

		if (strcmp(v->names.entries[r->host].name, p->host) == 0 &&
		    (p->pid == 0 || (r->pid == p->pid && r->gen == p->gen)))
			ev[n++] = (struct event_ref){ r->time, (uint32_t)i, false };
	}
	/* the heat map is the host's: a process's file goes without; the
	 * drains that fill the range's seconds, not those read before it */
	for (i = 0; p->pid == 0 && i < v->nheat; i++)
		if (strcmp(v->names.entries[v->heat[i].host].name, p->host) == 0 &&
		    v->heat[i].time >= p->start - 1 && v->heat[i].time <= p->end + 1)
			ev[n++] = (struct event_ref){ v->heat[i].time, (uint32_t)i, true };
	qsort(ev, n, sizeof(*ev), event_cmp);
	membuf_puts(out, "{\"version\":1,\"host\":");
	json_string(out, p->host);
	membuf_puts(out, ",\"event\":");
	json_string(out, event ? event : "on-cpu");
	membuf_printf(out, ",\"start\":%.6f,\"end\":%.6f,\"gaps\":[", p->start, p->end);
	for (i = 0; i < ng; i++) {
		membuf_printf(out, "%s{\"start\":%.6f,\"end\":%.6f,\"why\":", i ? "," : "",
			      g[i].start, g[i].end);
		json_string(out, g[i].why ? g[i].why : "");
		membuf_puts(out, "}");
	}
	membuf_puts(out, "],");
	if (v->dropped)
		membuf_printf(out, "\"error\":\"range too long for the page: more than %u records; "
			      "narrow it with -S/-T\",", VIEW_MAX_RECORDS);
	membuf_puts(out, "\"values\":[");
	sts = v->dropped ? 0 : render_values(v, ev, n, &t, out);
	membuf_puts(out, "\n]}\n");
	intern_free(&t.threads);
	intern_free(&t.frames);
	free(ev);
	free(t.stacks);
	return sts < 0 || out->failed ? -ENOMEM : 0;
}
