/*
 * source_archive.c - an exact profile of [-S, -T] from pmlogger archives,
 * and the heat map of that range.
 *
 * We sum the stackprof.<event>.stacks records whose own timestamps (the
 * PMDA's drain times) fall in (start, end]; see docs/design.md, "Why
 * pmflame reads event records for archives".  A record drained at t is
 * logged at the next pmlogger fetch, at or after t, so we read from start
 * and stop at the first record newer than end: the logging interval moves
 * where records sit in the archive, never which records we count.
 *
 * Without -S (-T), every record logged before (after) the window counts:
 * pmcd hands a new client the records still queued from before it
 * connected, so an archive holds records older than its own start.
 *
 * Several archives: each is read on its own (they may come from different
 * hosts); archives of the same host add up to one profile per host.
 *
 * Heat maps read SOURCE_EDGE seconds beyond the window: the counter fetches
 * before it are baselines, and the records drained just after it cover its
 * last second (consumer's near()).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fetch.h"
#include "source.h"
#include "common/util.h"

struct archive {
	const char		*path;
	int			order;		/* position on the command line */
	int			ctx;
	char			host[PM_MAX_HOSTNAMELEN];
	struct timeval		start, end;	/* the requested window, clipped */
	struct fetch_set	fetch;
};

/* PCP's time window messages span lines (text, caret, hint): join them. */
static void
one_line(char *msg)
{
	char	*in, *out;
	int	space = 0;

	if (msg == NULL)
		return;
	for (in = out = msg; *in; in++) {
		if (*in == '\n' || *in == '\t' || *in == ' ') {
			space = out != msg;
			continue;
		}
		if (space)
			*out++ = ' ';
		space = 0;
		*out++ = *in;
	}
	*out = '\0';
}

/*
 * PCP parses "12:00:01.496550" through a double and truncates, giving
 * .496549999 s; records carry whole microseconds.  Rounding the parsed
 * time to the nearest microsecond gives back the time the user wrote, so
 * a range that starts on a record's timestamp excludes that record.
 */
static void
timespec_to_usec(const struct timespec *ts, struct timeval *tv)
{
	long	usec = (ts->tv_nsec + 500) / 1000;

	tv->tv_sec = ts->tv_sec + usec / 1000000;
	tv->tv_usec = usec % 1000000;
}

/*
 * Open archive path as the current context and work out its window from
 * o's -S/-T/-A/-O text and -z: the context, the archive's host, and the
 * window [from, to], rounded to microseconds as records are stamped.  -1
 * with "archive PATH: why" in err, also for an empty window.
 */
static int
window_open(const char *path, const struct archive_options *o, int *ctx,
	    char *host, size_t hostlen, struct timeval *from, struct timeval *to,
	    char *err, size_t errlen)
{
	pmHighResLogLabel	label;
	struct timespec		last, start, end, origin;
	char			*msg = NULL;
	int			sts;

	if ((*ctx = pmNewContext(PM_CONTEXT_ARCHIVE, path)) < 0) {
		snprintf(err, errlen, "cannot open archive %s: %s", path, pmErrStr(*ctx));
		return -1;
	}
	if ((sts = pmGetHighResArchiveLabel(&label)) < 0 ||
	    (sts = pmGetHighResArchiveEnd(&last)) < 0) {
		snprintf(err, errlen, "archive %s: %s", path, pmErrStr(sts));
		return -1;
	}
	snprintf(host, hostlen, "%s", label.hostname);
	if (o->hostzone && (sts = pmNewContextZone()) < 0) {
		snprintf(err, errlen, "archive %s: timezone: %s", path, pmErrStr(sts));
		return -1;
	}
	sts = pmParseHighResTimeWindow(o->start, o->finish, o->align, o->origin, &label.start,
				       &last, &start, &end, &origin, &msg);
	if (sts < 0) {
		one_line(msg);
		snprintf(err, errlen, "archive %s: bad time window: %s", path,
			 msg ? msg : "cannot parse");
		free(msg);
		return -1;
	}
	free(msg);
	timespec_to_usec(&start, from);
	timespec_to_usec(&end, to);
	if (tv_secs(from) >= tv_secs(to)) {
		snprintf(err, errlen, "archive %s: empty time range (start is not before end)",
			 path);
		return -1;
	}
	return 0;
}

/* Open one archive, its window and the metrics c needs in it. */
static int
archive_open(struct archive *a, const struct archive_options *o,
	     const struct source_consumer *c, char *err, size_t errlen)
{
	char	where[PATH_MAX + 16];

	if (window_open(a->path, o, &a->ctx, a->host, sizeof(a->host), &a->start, &a->end,
			err, errlen) < 0)
		return -1;
	snprintf(where, sizeof(where), "archive %s", a->path);
	return fetch_lookup(&a->fetch, o->metrics, c, where, true, err, errlen);
}

/* Records of the window to sample(), those of its edges to near(). */
static void
archive_range(const struct archive *a, const struct archive_options *o,
	      const struct source_consumer *c, struct fetch_range *r)
{
	r->from = o->start ? tv_secs(&a->start) : -INFINITY;
	r->to = o->finish ? tv_secs(&a->end) : INFINITY;
	r->near_from = c->counters ? fmin(r->from, tv_secs(&a->start) - SOURCE_EDGE) : r->from;
	r->near_to = c->counters ? fmax(r->to, tv_secs(&a->end) + SOURCE_EDGE) : r->to;
}

static int
archive_failed(const struct archive *a, int sts, char *err, size_t errlen)
{
	snprintf(err, errlen, "archive %s: %s", a->path, pmErrStr(sts));
	return -1;
}

/* Read from where the window (or, for heat maps, its edge) starts; a
 * history from the archive's start, where its definitions are. */
static int
archive_rewind(const struct archive *a, const struct source_consumer *c)
{
	double		begin = tv_secs(&a->start) - (c->counters ? SOURCE_EDGE : 0);

	if (a->fetch.hist != NULL)
		begin = 0;
	struct timeval	tv = { (time_t)floor(begin), 0 };
	int		sts;

	tv.tv_usec = (suseconds_t)((begin - floor(begin)) * 1e6 + 0.5);
	if (tv.tv_usec >= 1000000) {
		tv.tv_sec++;
		tv.tv_usec -= 1000000;
	}
	if ((sts = pmUseContext(a->ctx)) < 0)
		return sts;
	return pmSetMode(PM_MODE_FORW, c->counters || a->fetch.hist ? &tv : &a->start, 0);
}

/*
 * Hand over every record of the archive's window (and its heat map
 * counters); widen w to the records.  Records are queued in drain order,
 * so the first one after the range ends it; heat maps also stop at the
 * first fetch SOURCE_EDGE after the window.  Every error is fatal here:
 * an archive does not get better by reading on.
 */
static int
archive_read(struct archive *a, const struct archive_options *o,
	     const struct source_consumer *c, struct window *w, char *err, size_t errlen)
{
	struct fetch_counts	n = { .records = { .first = INFINITY }, .first = INFINITY };
	struct fetch_range	r;
	double			start = tv_secs(&a->start), edge = tv_secs(&a->end) + SOURCE_EDGE;
	bool			first = true;
	pmResult		*rp;
	int			sts;

	archive_range(a, o, c, &r);
	if ((sts = archive_rewind(a, c)) < 0)
		return archive_failed(a, sts, err, errlen);
	while (n.records.after == 0 && (sts = pmFetch(a->fetch.npmids, a->fetch.pmids, &rp)) >= 0) {
		double	t = tv_secs(&rp->timestamp);

		if (c->counters && t > edge) {
			pmFreeResult(rp);
			break;
		}
		sts = fetch_deliver(&a->fetch, rp, a->host, &r, first || t <= start, c, &n);
		pmFreeResult(rp);
		first = false;
		if (sts < 0)
			return sts;
		if (n.decode_error)
			return archive_failed(a, n.decode_error, err, errlen);
	}
	if (sts < 0 && sts != PM_ERR_EOL)
		return archive_failed(a, sts, err, errlen);
	if (n.records.malformed)
		fprintf(stderr, "%s: warning: archive %s: %lu records without stack or count\n",
			pmGetProgname(), a->path, n.records.malformed);
	if (n.bad_heat)
		fprintf(stderr, "%s: warning: archive %s: %lu fetches of %s with unexpected "
			"instances, skipped\n", pmGetProgname(), a->path, n.bad_heat, HEATMAP_METRIC);
	if (n.in_window > 0 && n.first < w->start)
		w->start = n.first;
	if (n.in_window > 0 && n.last > w->end)
		w->end = n.last;
	return 0;
}

static int
by_host(const void *x, const void *y)
{
	const struct archive	*a = x, *b = y;
	int			c = strcmp(a->host, b->host);

	return c ? c : a->order - b->order;
}

/* The window of the host of v[i..j): the union of its archives' ranges. */
static struct window
host_window(const struct archive *v, int i, int j)
{
	struct window	w = { v[i].host, tv_secs(&v[i].start), tv_secs(&v[i].end) };

	for (; i < j; i++) {
		w.start = fmin(w.start, tv_secs(&v[i].start));
		w.end = fmax(w.end, tv_secs(&v[i].end));
	}
	return w;
}

/* One host's archives v[i..j) as one window. */
static int
host_read(struct archive *v, int i, int j, const struct archive_options *o,
	  const struct source_consumer *c, char *err, size_t errlen)
{
	struct window	w = host_window(v, i, j);
	int		sts = c->begin ? c->begin(c->arg, &w) : 0;

	for (; i < j && sts == 0; i++)
		sts = archive_read(&v[i], o, c, &w, err, errlen);
	return sts == 0 ? c->end(c->arg, &w) : sts;
}

int
source_archive_read(const struct archive_options *o, const struct source_consumer *c,
		    char *err, size_t errlen)
{
	struct archive	*v = calloc((size_t)o->narchives, sizeof(*v));
	int		i, j, sts = 0;

	if (v == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* pmNewZone returns a handle: 0 only the first time in a process */
	if (o->timezone && (i = pmNewZone(o->timezone)) < 0) {
		snprintf(err, errlen, "-Z %s: %s", o->timezone, pmErrStr(i));
		free(v);
		return -1;
	}
	for (i = 0; i < o->narchives; i++) {
		v[i].path = o->archives[i];
		v[i].order = i;
		v[i].ctx = -1;
	}
	/* open them all first: a bad archive fails the run before any output */
	for (i = 0; i < o->narchives && sts == 0; i++)
		sts = archive_open(&v[i], o, c, err, errlen);
	if (sts == 0)
		qsort(v, (size_t)o->narchives, sizeof(*v), by_host);
	for (i = 0; i < o->narchives && sts == 0; i = j) {
		for (j = i; j < o->narchives && strcmp(v[j].host, v[i].host) == 0; j++)
			;
		sts = host_read(v, i, j, o, c, err, errlen);
	}
	if (sts < 0 && sts != -1 && err[0] == '\0')
		snprintf(err, errlen, "%s", strerror(-sts));
	for (i = 0; i < o->narchives; i++) {
		fetch_free(&v[i].fetch);
		if (v[i].ctx >= 0)
			pmDestroyContext(v[i].ctx);
	}
	free(v);
	return sts < 0 ? -1 : 0;
}
