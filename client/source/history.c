/*
 * history.c - stackprof.<event>.history values to stack_samples (see
 * history.h).  The text is untrusted: every number is range-checked, every
 * line that does not parse is skipped and counted, nothing is assumed
 * about line lengths.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "lib/hash.h"
#include "history.h"

struct hist_thread {
	uint32_t	pid, gen, tid;
	char		*comm, *process;	/* one allocation: comm\0process\0 */
};

/* ids -> index in an array of definitions, one kind */
struct hist_ids {
	struct hash_table ids;
	size_t		n, cap;
};

struct history_reader {
	const char	*event;
	history_value_fn value;
	struct hist_ids	tids, fids, sids;
	struct hist_thread *threads;
	char		**frames;	/* names */
	char		**stacks;	/* folded: frame names joined by ';' */
	char		*fold;		/* a stack being resolved */
	size_t		foldcap;
	long		*prev;		/* the frames (indexes) of the value's */
	size_t		nprev, prevcap;	/* last stack, for "s ID ^K ..." */
	long		*cur;
	size_t		curcap;
};

struct history_reader *
history_reader_new(const char *event, history_value_fn value)
{
	struct history_reader	*r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->event = event;
	r->value = value;
	if (hash_table_init(&r->tids.ids, 64) < 0 || hash_table_init(&r->fids.ids, 256) < 0 ||
	    hash_table_init(&r->sids.ids, 256) < 0) {
		history_reader_free(r);
		return NULL;
	}
	return r;
}

void
history_reader_free(struct history_reader *r)
{
	size_t	i;

	if (r == NULL)
		return;
	for (i = 0; i < r->tids.n; i++)
		free(r->threads[i].comm);
	for (i = 0; i < r->fids.n; i++)
		free(r->frames[i]);
	for (i = 0; i < r->sids.n; i++)
		free(r->stacks[i]);
	free(r->threads);
	free(r->frames);
	free(r->stacks);
	free(r->fold);
	free(r->prev);
	free(r->cur);
	hash_table_free(&r->tids.ids);
	hash_table_free(&r->fids.ids);
	hash_table_free(&r->sids.ids);
	free(r);
}

/* The index of id, or -1. */
static long
find_id(const struct hist_ids *k, uint64_t id)
{
	const struct hash_slot	*s = hash_table_find(&k->ids, hash_mix(id));

	return hash_slot_empty(s) ? -1 : (long)hash_slot_value(s);
}

/* The index for id: its old one (to be redefined), or a new one that the
 * caller's array must hold (*grown).  -ENOMEM. */
static long
slot_for(struct hist_ids *k, uint64_t id, bool *grown)
{
	uint64_t		key = hash_mix(id);	/* a bijection: exact */
	struct hash_slot	*s = hash_table_find(&k->ids, key);

	*grown = false;
	if (!hash_slot_empty(s))
		return (long)hash_slot_value(s);
	if (k->n >= UINT32_MAX - 1 || hash_table_insert(&k->ids, s, key, (uint32_t)k->n) < 0)
		return -ENOMEM;
	*grown = true;
	return (long)k->n++;
}

/* A decimal u64 at *p, then *p past it; false on no digits or overflow. */
static bool
parse_u64(const char **p, uint64_t *v)
{
	const char	*s = *p;
	uint64_t	x = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*v = x;
	return true;
}

static bool
parse_u32(const char **p, uint32_t *v)
{
	uint64_t	x;

	if (!parse_u64(p, &x) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static bool
skip_char(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

/* "t ID PID[.GEN] TID COMM<tab>PROCESS" (after "t "), line ending at end;
 * GEN numbers the later processes of a reused PID. */
static int
define_thread(struct history_reader *r, const char *p, const char *end)
{
	uint64_t	id;
	uint32_t	pid, gen = 0, tid;
	const char	*tab;
	char		*names;
	long		i;
	bool		grown;

	if (!parse_u64(&p, &id) || !skip_char(&p, ' ') || !parse_u32(&p, &pid) ||
	    (skip_char(&p, '.') && !parse_u32(&p, &gen)) || !skip_char(&p, ' ') || !parse_u32(&p, &tid) || !skip_char(&p, ' ') ||
	    (tab = memchr(p, '\t', (size_t)(end - p))) == NULL)
		return 1;
	if ((names = strndup(p, (size_t)(end - p))) == NULL)
		return -ENOMEM;
	names[tab - p] = '\0';
	if ((i = slot_for(&r->tids, id, &grown)) < 0 ||
	    (grown && array_reserve(&r->threads, &r->tids.cap, r->tids.n) < 0)) {
		free(names);
		return -ENOMEM;
	}
	if (!grown)
		free(r->threads[i].comm);
	r->threads[i] = (struct hist_thread){ pid, gen, tid, names, names + (tab - p) + 1 };
	return 0;
}

/* Keep text (owned) as definition id in k's array *v. */
static int
define_text(struct hist_ids *k, char ***v, uint64_t id, char *text)
{
	long	i;
	bool	grown;

	if ((i = slot_for(k, id, &grown)) < 0 || (grown && array_reserve(v, &k->cap, k->n) < 0)) {
		free(text);
		return -ENOMEM;
	}
	if (!grown)
		free((*v)[i]);
	(*v)[i] = text;
	return 0;
}

/* "f ID NAME" (after "f "); a name may be empty. */
static int
define_frame(struct history_reader *r, const char *p, const char *end)
{
	uint64_t	id;
	char		*name;

	if (!parse_u64(&p, &id) || !skip_char(&p, ' '))
		return 1;
	if ((name = strndup(p, (size_t)(end - p))) == NULL)
		return -ENOMEM;
	return define_text(&r->fids, &r->frames, id, name);
}

/* Append frame name f (and a ';' before it unless first) to r->fold. */
static int
fold_frame(struct history_reader *r, size_t *len, const char *f)
{
	size_t	n = strlen(f);

	if (array_reserve(&r->fold, &r->foldcap, *len + n + 2) < 0)
		return -ENOMEM;
	if (*len > 0)
		r->fold[(*len)++] = ';';
	memcpy(r->fold + *len, f, n + 1);
	*len += n;
	return 0;
}

/*
 * "s ID F,F,..." (after "s "): frame ids, root first, resolved now; or
 * "s ID ^K F,..." (K >= 1): the first K frames of the stack defined just
 * before in this value, then these.
 */
static int
define_stack(struct history_reader *r, const char *p, const char *end)
{
	uint64_t	id, fid, k = 0;
	size_t		len = 0, n = 0, i;
	long		fi, *t;
	char		*folded;
	int		sts;

	if (!parse_u64(&p, &id) || !skip_char(&p, ' '))
		return 1;
	if (skip_char(&p, '^') &&
	    (!parse_u64(&p, &k) || k == 0 || k > r->nprev || !skip_char(&p, ' ')))
		return 1;
	if (array_reserve(&r->cur, &r->curcap, (size_t)k + 1) < 0)
		return -ENOMEM;
	for (n = 0; n < k; n++)
		r->cur[n] = r->prev[n];
	do {
		if (!parse_u64(&p, &fid) || (fi = find_id(&r->fids, fid)) < 0)
			return 1;
		if (array_reserve(&r->cur, &r->curcap, n + 1) < 0)
			return -ENOMEM;
		r->cur[n++] = fi;
	} while (p < end && skip_char(&p, ','));
	if (p != end)
		return 1;
	for (i = 0; i < n; i++)
		if ((sts = fold_frame(r, &len, r->frames[r->cur[i]])) < 0)
			return sts;
	if ((folded = strdup(r->fold)) == NULL)
		return -ENOMEM;
	if ((sts = define_text(&r->sids, &r->stacks, id, folded)) < 0)
		return sts;
	t = r->prev, r->prev = r->cur, r->cur = t;	/* the next "^K" refers to it */
	i = r->prevcap, r->prevcap = r->curcap, r->curcap = i;
	r->nprev = n;
	return 0;
}

/* What the header says, and where samples go. */
struct value_ctx {
	struct history_reader	*r;
	const char		*host;
	double			time, from, to;
	unsigned		hz;
	stack_sample_fn		fn;
	void			*arg;
	history_heat_fn		heat;
	void			*heat_arg;
	struct record_counts	*c;
};

/* One "SID[:COUNT[:USEC]]" token of thread t, or "+D[...]": SID is D
 * past *prev, the line's token before (kept in *prev); 1 when malformed. */
static int
count_token(struct value_ctx *v, const struct hist_thread *t, const char **p, uint64_t *prev)
{
	uint64_t		sid, count = 1, value = 0;
	long			si;
	bool			explicit = false, delta = skip_char(p, '+');
	struct stack_sample	s;

	if (!parse_u64(p, &sid) || (delta && sid > UINT64_MAX - *prev))
		return 1;
	if (delta)
		sid += *prev;
	*prev = sid;
	if (skip_char(p, ':') && (!parse_u64(p, &count) ||
				  (skip_char(p, ':') && !(explicit = parse_u64(p, &value)))))
		return 1;
	if ((**p != ' ' && **p != '\n' && **p != '\0') || (si = find_id(&v->r->sids, sid)) < 0)
		return 1;
	s = (struct stack_sample){
		.host = v->host, .time = v->time, .stack = v->r->stacks[si],
		.process = t->process[0] ? t->process : t->comm, .thread = t->comm,
		.event = v->r->event, .pid = t->pid, .gen = t->gen, .tid = t->tid,
		.count = count,
		.value_us = explicit ? value : v->r->value(count, v->hz),
	};
	return records_offer(&s, v->from, v->to, v->fn, v->arg, v->c);
}

/* "TID SID[:COUNT[:USEC]] ..." up to end ("+D" tokens count from the SID
 * of the token before, whatever else that token held). */
static int
count_line(struct value_ctx *v, const char *p, const char *end)
{
	uint64_t	tid, prev = 0;
	long		ti;
	int		sts;

	if (!parse_u64(&p, &tid) || (ti = find_id(&v->r->tids, tid)) < 0) {
		v->c->malformed++;
		return 0;
	}
	while (p < end && *p == ' ') {
		p++;
		if ((sts = count_token(v, &v->r->threads[ti], &p, &prev)) < 0)
			return sts;
		if (sts == 1) {
			v->c->malformed++;
			while (p < end && *p != ' ')	/* resynchronise */
				p++;
		}
	}
	if (p != end)
		v->c->malformed++;
	return 0;
}

/* "SEC.USEC" at *p: the time as records compute it. */
static bool
parse_time(const char **p, double *time)
{
	uint64_t	sec, usec;
	const char	*usec_at;

	if (!parse_u64(p, &sec) || !skip_char(p, '.') || (usec_at = *p, !parse_u64(p, &usec)) ||
	    *p - usec_at != 6 || sec > INT64_MAX / 2)
		return false;
	*time = (double)sec + (double)usec / 1e6;
	return true;
}

/* "drains N SEC.USEC hz HZ[ missed M][ period P key]" (what follows HZ
 * is read by history_keyframe_period only: older values end at HZ, M or
 * " key") */
static bool
parse_header(const char *p, const char *end, double *time, unsigned *hz)
{
	uint64_t	n;
	uint32_t	h;

	if ((size_t)(end - p) < 7 || memcmp(p, "drains ", 7) != 0)
		return false;
	p += 7;
	if (!parse_u64(&p, &n) || !skip_char(&p, ' ') || !parse_time(&p, time) ||
	    (size_t)(end - p) < 4 || memcmp(p, " hz ", 4) != 0)
		return false;
	p += 4;
	if (!parse_u32(&p, &h))
		return false;
	*hz = h;
	return true;
}

#define HEADER_MAX	128	/* "drains" and five u64s with their words fit */

/* The " period P" just before the header's " key" at end: P, else 0. */
static unsigned
header_period(const char *line, const char *end)
{
	const char	*p = end - 4;
	uint32_t	period;

	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p - line < 8 || memcmp(p - 8, " period ", 8) != 0 || !parse_u32(&p, &period) ||
	    p != end - 4 || period > INT32_MAX)
		return 0;
	return period;
}

int
history_keyframe_period(const char *text, size_t len)
{
	char		line[HEADER_MAX];
	const char	*nl = memchr(text, '\n', len < sizeof(line) ? len : sizeof(line));
	size_t		n = nl ? (size_t)(nl - text) : len;
	double		t;
	unsigned	hz;

	if (n >= sizeof(line))
		return -1;
	memcpy(line, text, n);
	line[n] = '\0';
	if (memchr(line, '\0', n) != NULL)
		return -1;	/* a NUL inside the first line: not ours */
	if (!parse_header(line, line + n, &t, &hz) || n < 4 || memcmp(line + n - 4, " key", 4) != 0)
		return -1;
	return (int)header_period(line, line + n);
}

bool
history_is_keyframe(const char *text, size_t len)
{
	return history_keyframe_period(text, len) >= 0;
}

#define MAX_SLICES	1000	/* the finest heat map: 1 ms slices */

/* "h SEC.USEC N C0 C1 ..." (after "h "): N slices dividing the second,
 * at most N counts, the rest 0; "C*R" is C R times. */
static int
heat_line(struct value_ctx *v, const char *p, const char *end)
{
	uint64_t	counts[MAX_SLICES] = { 0 };
	uint32_t	n, run;
	double		t;
	unsigned	i;

	if (!parse_time(&p, &t) || !skip_char(&p, ' ') || !parse_u32(&p, &n) ||
	    n == 0 || n > MAX_SLICES || MAX_SLICES % n != 0)
		return 1;
	for (i = 0; p < end && skip_char(&p, ' '); i += run) {
		uint64_t	c;

		run = 1;
		if (i >= n || !parse_u64(&p, &c) ||
		    (skip_char(&p, '*') && (!parse_u32(&p, &run) || run == 0 || run > n - i)))
			return 1;
		for (unsigned j = 0; j < run; j++)
			counts[i + j] = c;
	}
	if (p != end)
		return 1;
	return v->heat ? v->heat(v->heat_arg, t, counts, n) : 0;
}

static int
history_line(struct value_ctx *v, const char *p, const char *end)
{
	int	sts = 1;

	if (end - p >= 2 && p[0] == 't' && p[1] == ' ')
		sts = define_thread(v->r, p + 2, end);
	else if (end - p >= 2 && p[0] == 'f' && p[1] == ' ')
		sts = define_frame(v->r, p + 2, end);
	else if (end - p >= 2 && p[0] == 's' && p[1] == ' ')
		sts = define_stack(v->r, p + 2, end);
	else if (end - p >= 2 && p[0] == 'h' && p[1] == ' ')
		sts = heat_line(v, p + 2, end);
	else if (p < end && *p >= '0' && *p <= '9')
		return count_line(v, p, end);
	if (sts == 1)
		v->c->malformed++;
	return sts < 0 ? sts : 0;
}

int
history_deliver(struct history_reader *r, const char *text, const char *host,
		double from, double to, stack_sample_fn fn, void *arg,
		history_heat_fn heat, void *heat_arg, struct record_counts *c)
{
	struct value_ctx	v = { r, host, 0, from, to, 0, fn, arg, heat, heat_arg, c };
	const char		*p = text, *end;
	int			sts = 0;

	end = strchr(p, '\n');
	if (end == NULL)
		end = p + strlen(p);
	if (!parse_header(p, end, &v.time, &v.hz)) {
		c->malformed++;
		return 0;
	}
	r->nprev = 0;	/* "^K" refers within one value */
	while (*end == '\n' && sts == 0) {
		p = end + 1;
		if ((end = strchr(p, '\n')) == NULL)
			end = p + strlen(p);
		sts = history_line(&v, p, end);
	}
	return sts;
}
