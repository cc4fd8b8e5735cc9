/*
 * source_heatmap.c - pmflame --format heatmap: fetch the heat map counters
 * and the stack records from an archive or a live pmcd, build one heat map
 * per archive or host (heatmap.c), render it (emit_heatmap.c) and store it
 * beside the flame graphs: HOST/Total/START_END-heatmap.svg (+ latest-).
 *
 * One fetch asks for stackprof.control.interval (the drain interval, which
 * says which second a stack record belongs to), stackprof.heatmap.oncpu and
 * the stacks event metric; the last two are optional only in the sense
 * that a heat map without stacks still shows the counts.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcp/pmapi.h>
#include "emit/emit_heatmap.h"
#include "profile/heatmap.h"
#include "publish/output.h"
#include "records.h"
#include "publish/site.h"
#include "source_heatmap.h"
#include "common/util.h"

#define INTERVAL_METRIC	"stackprof.control.interval"
#define MAX_SLICES	1000		/* SP_HEATMAP_MAX_SLOTS */
#define EDGE		3.0		/* seconds read beyond the window's ends */

/* One archive or one live host and the heat map made from it. */
struct hm_source {
	const char		*spec;		/* archive path or -h host */
	char			host[PM_LOG_MAXHOSTLEN];
	int			ctx;
	int			archive;
	pmID			pmids[3];
	int			npmids;
	pmID			interval_id, heat_id, stacks_id;	/* PM_ID_NULL if absent */
	struct record_ids	ids;
	double			from, to;	/* window (archive) or first/last fetch (live) */
	double			drain;		/* seconds covered by one stack record */
	struct heatmap		hm;
	int			have_hm;
	int			last_error;	/* live: reported once until it changes */
	const struct heatmap_run_options *o;
	char			*buf;		/* scratch for splitting stacks */
	size_t			buflen;
	const char		**path;
	size_t			pathcap;
};

bool
heatmap_format_take(const char *list, char **rest)
{
	char	*copy = strdup(list), *w, *save = NULL, *out;
	bool	found = false;

	*rest = NULL;
	out = calloc(1, strlen(list) + 1);
	if (copy == NULL || out == NULL) {
		free(copy);
		free(out);
		return false;
	}
	for (w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (strcmp(w, "heatmap") == 0) {
			found = true;
			continue;
		}
		if (out[0])
			strcat(out, ",");
		strcat(out, w);
	}
	free(copy);
	if (out[0])
		*rest = out;
	else
		free(out);
	return found;
}

/* ---- reading ---- */

/* Split one record's stack into path = process, [t] thread, frames. */
static int
record_path(struct hm_source *s, const struct stack_sample *smp, char *thread, size_t *n)
{
	size_t	len = strlen(smp->stack) + 1, nf = 3;
	char	*p, *semi;

	for (p = (char *)smp->stack; *p; p++)
		nf += *p == ';';
	if (len > s->buflen) {
		if ((p = realloc(s->buf, len)) == NULL)
			return -ENOMEM;
		s->buf = p;
		s->buflen = len;
	}
	if (nf > s->pathcap) {
		const char **v = realloc(s->path, nf * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		s->path = v;
		s->pathcap = nf;
	}
	*n = 0;
	s->path[(*n)++] = smp->process;
	if (thread)
		s->path[(*n)++] = thread;
	memcpy(s->buf, smp->stack, len);
	for (p = s->buf; p; p = semi) {
		if ((semi = strchr(p, ';')) != NULL)
			*semi++ = '\0';
		if (*p)
			s->path[(*n)++] = p;
	}
	return 0;
}

/* A stack_sample_fn: one record into the second its drain interval covers. */
static int
add_record(void *arg, const struct stack_sample *smp)
{
	struct hm_source	*s = arg;
	char			*thread = NULL;
	size_t			n;
	int			sts;

	if (smp->count == 0 || (s->o->filter && !selection_wants(s->o->filter, smp)))
		return 0;
	if (smp->thread && asprintf(&thread, "[t] %s", smp->thread) < 0)
		return -ENOMEM;
	if ((sts = record_path(s, smp, thread, &n)) == 0)
		sts = heatmap_add_stack(&s->hm, heatmap_record_second(smp->time, s->drain),
					s->path, n, smp->count);
	free(thread);
	return sts;
}

/* The per-slice values of one fetch, by instance (the slice's offset in ms). */
static int
heat_values(const pmValueSet *vs, uint64_t *v, unsigned *n)
{
	pmAtomValue	atom;
	unsigned	k = (unsigned)vs->numval, width;
	int		i;

	if (vs->numval <= 0 || k > MAX_SLICES || 1000 % k != 0)
		return -1;
	width = 1000 / k;
	memset(v, 0, k * sizeof(*v));
	for (i = 0; i < vs->numval; i++) {
		int	inst = vs->vlist[i].inst;

		if (inst < 0 || inst % width != 0 || (unsigned)inst / width >= k ||
		    pmExtractValue(vs->valfmt, &vs->vlist[i], PM_TYPE_U64, &atom, PM_TYPE_U64) < 0)
			return -1;
		v[inst / width] = atom.ull;
	}
	*n = k;
	return 0;
}

/* Lazily start the heat map with the slice count first seen. */
static int
ensure_heatmap(struct hm_source *s, unsigned rows)
{
	int	sts;

	if (s->have_hm)
		return 0;
	if ((sts = heatmap_init(&s->hm, rows)) < 0)
		return sts;
	s->have_hm = 1;
	if (s->archive)
		return heatmap_set_window(&s->hm, (int64_t)floor(s->from), (int64_t)ceil(s->to) - 1);
	return 0;
}

static int
take_heat(struct hm_source *s, const pmValueSet *vs, double t)
{
	uint64_t	v[MAX_SLICES];
	unsigned	n;
	int		sts;

	if (heat_values(vs, v, &n) < 0) {
		fprintf(stderr, "%s: warning: %s: unexpected %s instances at %.3f, skipped\n",
			pmGetProgname(), s->spec, HEATMAP_METRIC, t);
		return 0;
	}
	if ((sts = ensure_heatmap(s, n)) < 0)
		return sts;
	if (s->archive && t <= s->from)
		return heatmap_counters_baseline(&s->hm, t, v, n);
	return heatmap_add_counters(&s->hm, t, v, n);
}

/* One pmResult: the interval first (it dates the records), then the rest. */
static int
take_result(struct hm_source *s, const pmResult *rp)
{
	struct record_counts	c = { 0 };
	pmAtomValue		atom;
	double			t = rp->timestamp.tv_sec + rp->timestamp.tv_usec / 1e6;
	int			j, sts = 0;

	for (j = 0; j < rp->numpmid && sts == 0; j++) {
		const pmValueSet *vs = rp->vset[j];

		if (vs->numval <= 0)
			continue;
		if (vs->pmid == s->interval_id) {
			if (pmExtractValue(vs->valfmt, &vs->vlist[0], PM_TYPE_U32, &atom,
					   PM_TYPE_U32) >= 0 && atom.ul > 0)
				s->drain = atom.ul / 1000.0;
		} else if (vs->pmid == s->heat_id)
			sts = take_heat(s, vs, t);
		else if (vs->pmid == s->stacks_id) {
			if ((sts = ensure_heatmap(s, 50)) == 0)
				/* live: records drained before our first fetch (a
				 * queue's backlog) cover time before the heat map */
				sts = records_deliver(vs, &s->ids, s->host,
						      s->archive ? s->from - EDGE : s->from,
						      s->archive ? s->to + EDGE : -1,
						      add_record, s, &c);
		}
	}
	return sts;
}

/* Names to ids in the current context; the heat map metric is required. */
static int
lookup(struct hm_source *s, char *err, size_t errlen)
{
	const char	*heat = HEATMAP_METRIC, *interval = INTERVAL_METRIC;
	char		e2[256];
	pmDesc		d;
	int		sts;

	s->interval_id = s->heat_id = s->stacks_id = PM_ID_NULL;
	if ((sts = pmLookupName(1, &heat, &s->heat_id)) < 0 ||
	    (sts = pmLookupDesc(s->heat_id, &d)) < 0) {
		snprintf(err, errlen, "%s: no %s: %s (is the stackprof PMDA installed%s?)",
			 s->spec, HEATMAP_METRIC, pmErrStr(sts),
			 s->archive ? " and the heat map logged" : "");
		return -1;
	}
	if (pmLookupName(1, &interval, &s->interval_id) < 0)
		s->interval_id = PM_ID_NULL;
	if (record_ids_lookup(s->o->metrics, s->spec, s->archive ? "did pmlogger log it?" :
			      "is the stackprof PMDA installed?", &s->ids, e2, sizeof(e2)) == 0)
		s->stacks_id = s->ids.stacks;
	else
		fprintf(stderr, "%s: warning: %s; the heat map has no stacks to select\n",
			pmGetProgname(), e2);
	s->npmids = 0;
	if (s->interval_id != PM_ID_NULL)
		s->pmids[s->npmids++] = s->interval_id;
	s->pmids[s->npmids++] = s->heat_id;
	if (s->stacks_id != PM_ID_NULL)
		s->pmids[s->npmids++] = s->stacks_id;
	return 0;
}

static int
archive_open(struct hm_source *s, char *err, size_t errlen)
{
	const struct heatmap_run_options *o = s->o;
	struct archive_options	window = {
		.start = o->start, .finish = o->finish, .align = o->align,
		.origin = o->origin, .hostzone = o->hostzone,
	};
	struct timeval		from, to;

	if (source_archive_open(s->spec, &window, &s->ctx, s->host, sizeof(s->host), &from, &to,
				err, errlen) < 0)
		return -1;
	s->from = tv_secs(&from);
	s->to = tv_secs(&to);
	return lookup(s, err, errlen);
}

static int
archive_read(struct hm_source *s, char *err, size_t errlen)
{
	struct timeval	tv;
	pmResult	*rp;
	double		begin = s->from - EDGE;
	int		sts;

	tv.tv_sec = (time_t)floor(begin);
	tv.tv_usec = (suseconds_t)((begin - floor(begin)) * 1e6);
	if ((sts = pmUseContext(s->ctx)) < 0 || (sts = pmSetMode(PM_MODE_FORW, &tv, 0)) < 0) {
		snprintf(err, errlen, "archive %s: %s", s->spec, pmErrStr(sts));
		return -1;
	}
	while ((sts = pmFetch(s->npmids, s->pmids, &rp)) >= 0) {
		double	t = tv_secs(&rp->timestamp);

		sts = t > s->to + EDGE ? 1 : take_result(s, rp);
		pmFreeResult(rp);
		if (sts != 0)
			break;
	}
	if (sts == PM_ERR_EOL || sts == 1)
		sts = ensure_heatmap(s, 50);	/* nothing logged: still a (noted) heat map */
	if (sts < 0) {
		snprintf(err, errlen, "archive %s: %s", s->spec, sts == -E2BIG ?
			 "time range too long for one heat map (at most a day at 50 slices): "
			 "narrow it with -S/-T" : pmErrStr(sts));
		return -1;
	}
	return 0;
}

/* ---- live ---- */

/* One fetch from a live host; a failed fetch is reported, not fatal. */
static int
live_fetch(struct hm_source *s)
{
	pmResult	*rp;
	int		sts;

	if ((sts = pmUseContext(s->ctx)) >= 0 && (sts = pmFetch(s->npmids, s->pmids, &rp)) >= 0) {
		if (s->from == 0)
			s->from = tv_secs(&rp->timestamp);
		s->to = tv_secs(&rp->timestamp);
		sts = take_result(s, rp);
		pmFreeResult(rp);
	}
	if (sts < 0 && sts > -4096 && sts != -ENOMEM && sts != -E2BIG) {
		if (sts != s->last_error)
			fprintf(stderr, "%s: warning: host %s: %s\n", pmGetProgname(), s->spec,
				pmErrStr(sts));
		s->last_error = sts;
		return 0;
	}
	return sts < 0 ? sts : 0;
}

static int
live_open(struct hm_source *s, char *err, size_t errlen)
{
	if ((s->ctx = pmNewContext(PM_CONTEXT_HOST, s->spec)) < 0) {
		snprintf(err, errlen, "cannot connect to pmcd on host %s: %s",
			 s->spec, pmErrStr(s->ctx));
		return -1;
	}
	if (pmGetContextHostName_r(s->ctx, s->host, sizeof(s->host)) == NULL || !s->host[0])
		snprintf(s->host, sizeof(s->host), "%s", s->spec);
	return lookup(s, err, errlen);
}

/* Poll every host each interval until the duration ends or a signal. */
static int
live_run(struct hm_source *v, int n, const struct heatmap_run_options *o,
	 char *err, size_t errlen)
{
	double		step = o->interval > 0 ? o->interval : 1.0;
	double		t = wallclock_now(), next = t + step;
	double		stop_at = o->duration > 0 ? t + o->duration : INFINITY;
	int		i, sts = 0;

	for (i = 0; i < n && sts == 0; i++)	/* baseline; starts the record queues */
		sts = live_fetch(&v[i]);
	while (sts == 0 && !source_stop && wallclock_now() < stop_at) {
		sleep_until(fmin(next, stop_at));	/* EINTR: look at source_stop */
		if (source_stop)
			break;
		for (i = 0; i < n && sts == 0; i++)
			sts = live_fetch(&v[i]);
		while (next <= wallclock_now())
			next += step;
	}
	for (i = 0; i < n && sts == 0; i++)
		sts = ensure_heatmap(&v[i], 50);
	if (sts < 0)
		snprintf(err, errlen, "%s", sts == -E2BIG ? "live run too long for one heat map"
			 : strerror(-sts));
	return sts < 0 ? -1 : 0;
}

/* ---- output ---- */

static int
put(const struct heatmap_run_options *o, const char *path, const struct membuf *b,
    char *err, size_t errlen)
{
	return sink_put(*o->sink, path, "image/svg+xml", b->data, b->len, err, errlen);
}

/* Render one heat map and store it (or print it). */
static int
store(struct hm_source *s, const struct heatmap_run_options *o, char *err, size_t errlen)
{
	struct heatmap_emit_options	eo = { o->title, NULL, o->width };
	struct membuf			b;
	char				sub[512], from[40], to[40], host[128], stem[384], latest[256];
	char				tf[32], tt[32], file[400];
	int				sts = 0;

	heatmap_finish(&s->hm);
	utc_strftime(s->from, "%Y-%m-%d %H:%M:%S UTC", from, sizeof(from));
	utc_strftime(s->to, "%Y-%m-%d %H:%M:%S UTC", to, sizeof(to));
	snprintf(sub, sizeof(sub), "%s %s, %s to %s; %llu samples in the heat map, %llu in stacks%s",
		 s->archive ? "archive" : "pmcd", s->host, from, to,
		 (unsigned long long)heatmap_total(&s->hm),
		 (unsigned long long)heatmap_stack_total(&s->hm),
		 o->filter ? " (selected processes)" : "");
	eo.subtitle = sub;
	if (heatmap_total(&s->hm) == 0 && heatmap_stack_total(&s->hm) == 0)
		fprintf(stderr, "%s: warning: %s: no samples from %s to %s; the heat map says so\n",
			pmGetProgname(), s->spec, from, to);
	membuf_init(&b);
	if (emit_heatmap(&s->hm, &eo, &b) < 0 || b.failed) {
		snprintf(err, errlen, "cannot render the heat map of %s: out of memory", s->spec);
		membuf_free(&b);
		return -1;
	}
	if (o->output && *o->sink == NULL &&		/* opened only once there is output */
	    (*o->sink = sink_open(o->output, &site_index_merge, err, errlen)) == NULL) {
		membuf_free(&b);
		return -1;
	}
	if (o->output == NULL) {
		if (fwrite(b.data, 1, b.len, stdout) != b.len || fflush(stdout) != 0) {
			snprintf(err, errlen, "cannot write to stdout: %s", strerror(errno));
			sts = -1;
		}
		membuf_free(&b);
		return sts;
	}
	sink_safe_name(s->host, host, sizeof(host));
	output_time_name(s->from, tf, sizeof(tf));
	output_time_name(s->to, tt, sizeof(tt));
	/* "-heatmap" keeps the stem apart from the Total flame graph's */
	snprintf(stem, sizeof(stem), "%s/Total/%s_%s-heatmap", host, tf, tt);
	snprintf(latest, sizeof(latest), "%s/Total/latest-heatmap.svg", host);
	snprintf(file, sizeof(file), "%s.svg", stem);
	sts = put(o, file, &b, err, errlen);
	if (sts == 0)
		sts = put(o, latest, &b, err, errlen);
	if (sts == 0) {
		struct site_entry e = {
			.host = s->host, .name = "heat map", .start = s->from, .end = s->to,
			.samples = heatmap_total(&s->hm), .stem = stem, .exts = { "svg" }, .nexts = 1,
		};
		sts = site_update(*o->sink, &e, 1, err, errlen);
	}
	membuf_free(&b);
	return sts < 0 ? -1 : 0;
}

static void
source_free(struct hm_source *s)
{
	if (s->ctx >= 0)
		pmDestroyContext(s->ctx);
	if (s->have_hm)
		heatmap_free(&s->hm);
	free(s->buf);
	free(s->path);
}

int
heatmap_run(const struct heatmap_run_options *o, char *err, size_t errlen)
{
	int			n = o->narchives > 0 ? o->narchives : o->nhosts, i, sts = 0;
	struct hm_source	*v;

	if (n > 1 && o->output == NULL) {
		snprintf(err, errlen, "%d heat maps: give -o DIR to write them all", n);
		return -1;
	}
	if (o->timezone && (sts = pmNewZone(o->timezone)) < 0) {
		snprintf(err, errlen, "-Z %s: %s", o->timezone, pmErrStr(sts));
		return -1;
	}
	if ((v = calloc((size_t)n, sizeof(*v))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		v[i].spec = o->narchives > 0 ? o->archives[i] : o->hosts[i];
		v[i].archive = o->narchives > 0;
		v[i].ctx = -1;
		v[i].drain = 1.0;
		v[i].o = o;
	}
	/* open everything first: a bad archive or host fails before any output */
	for (i = 0; i < n && sts == 0; i++)
		sts = v[i].archive ? archive_open(&v[i], err, errlen) : live_open(&v[i], err, errlen);
	if (sts == 0 && o->narchives > 0)
		for (i = 0; i < n && sts == 0; i++)
			sts = archive_read(&v[i], err, errlen);
	else if (sts == 0)
		sts = live_run(v, n, o, err, errlen);
	for (i = 0; i < n && sts == 0; i++)
		sts = store(&v[i], o, err, errlen);
	for (i = 0; i < n; i++)
		source_free(&v[i]);
	free(v);
	return sts < 0 ? -1 : 0;
}
