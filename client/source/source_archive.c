/*
 * source_archive.c - an exact profile of [-S, -T] from pmlogger archives.
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
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "records.h"
#include "source.h"
#include "common/util.h"

struct archive {
	const char		*path;
	int			order;		/* position on the command line */
	int			ctx;
	char			host[PM_MAX_HOSTNAMELEN];
	struct timeval		start, end;	/* the requested window, clipped */
	struct record_ids	ids;
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

int
source_archive_open(const char *path, const struct archive_options *o, int *ctx,
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

/* Open one archive, its window and the record metrics in it. */
static int
archive_open(struct archive *a, const struct archive_options *o, char *err, size_t errlen)
{
	char	where[PATH_MAX + 16];

	if (source_archive_open(a->path, o, &a->ctx, a->host, sizeof(a->host), &a->start,
				&a->end, err, errlen) < 0)
		return -1;
	snprintf(where, sizeof(where), "archive %s", a->path);
	return record_ids_lookup(o->metrics, where, "did pmlogger log it?", &a->ids, err, errlen);
}

/* Hand over every record of the archive's window; widen it to them. */
static int
archive_read(struct archive *a, const struct archive_options *o, stack_sample_fn fn,
	     void *arg, struct window *w, char *err, size_t errlen)
{
	struct record_counts	c = { .first = INFINITY };
	double			from = o->start ? tv_secs(&a->start) : -INFINITY;
	double			to = o->finish ? tv_secs(&a->end) : INFINITY;
	pmResult		*rp;
	int			sts;

	if ((sts = pmUseContext(a->ctx)) < 0 ||
	    (sts = pmSetMode(PM_MODE_FORW, &a->start, 0)) < 0) {
		snprintf(err, errlen, "archive %s: %s", a->path, pmErrStr(sts));
		return -1;
	}
	/* records are queued in drain order: the first one after the window ends it */
	while (c.after == 0 && (sts = pmFetch(1, &a->ids.stacks, &rp)) >= 0) {
		if (rp->numpmid == 1 && rp->vset[0]->numval > 0)
			sts = records_deliver(rp->vset[0], &a->ids, a->host, from, to, fn, arg, &c);
		pmFreeResult(rp);
		if (sts < 0)
			break;
	}
	if (sts < 0 && sts != PM_ERR_EOL) {
		snprintf(err, errlen, "archive %s: %s", a->path, pmErrStr(sts));
		return -1;
	}
	if (c.malformed)
		fprintf(stderr, "%s: warning: archive %s: %lu records without stack or count\n",
			pmGetProgname(), a->path, c.malformed);
	if (c.records > 0 && c.first < w->start)
		w->start = c.first;
	if (c.records > 0 && c.last > w->end)
		w->end = c.last;
	return 0;
}

static int
by_host(const void *x, const void *y)
{
	const struct archive	*a = x, *b = y;
	int			c = strcmp(a->host, b->host);

	return c ? c : a->order - b->order;
}

int
source_archive_read(const struct archive_options *o, stack_sample_fn fn,
		    window_fn wfn, void *arg, char *err, size_t errlen)
{
	struct archive	*v = calloc((size_t)o->narchives, sizeof(*v));
	int		i, j, sts = 0;

	if (v == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (o->timezone && (sts = pmNewZone(o->timezone)) < 0) {
		snprintf(err, errlen, "-Z %s: %s", o->timezone, pmErrStr(sts));
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
		sts = archive_open(&v[i], o, err, errlen);
	if (sts == 0)
		qsort(v, (size_t)o->narchives, sizeof(*v), by_host);
	for (i = 0; i < o->narchives && sts == 0; i = j) {
		struct window	w = { v[i].host, tv_secs(&v[i].start), tv_secs(&v[i].end) };

		for (j = i; j < o->narchives && strcmp(v[j].host, v[i].host) == 0 && sts == 0; j++) {
			sts = archive_read(&v[j], o, fn, arg, &w, err, errlen);
			if (tv_secs(&v[j].start) < w.start)
				w.start = tv_secs(&v[j].start);
			if (tv_secs(&v[j].end) > w.end)
				w.end = tv_secs(&v[j].end);
		}
		if (sts == 0)
			sts = wfn(arg, &w);
	}
	for (i = 0; i < o->narchives; i++)
		if (v[i].ctx >= 0)
			pmDestroyContext(v[i].ctx);
	free(v);
	return sts < 0 ? -1 : 0;
}
