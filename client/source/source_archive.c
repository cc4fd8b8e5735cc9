/*
 * source_archive.c - an exact profile of [-S, -T] from pmlogger archives,
 * and the heat map of that range.
 *
 * We sum the stackprof.<event>.stacks records whose own timestamps (the
 * PMDA's drain times) fall in (start, end]; see docs/design.md, "pmflame"
 * (archives: the history, else records).  A record drained at t is
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
#include "archive_child.h"
#include "archive_damage.h"
#include "archive_seek.h"
#include "fetch.h"
#include "source.h"
#include "common/util.h"

struct archive {
	const char		*path;
	int			order;		/* position on the command line */
	int			ctx;
	char			host[PM_MAX_HOSTNAMELEN];
	struct timeval		start, end;	/* the requested window, clipped */
	double			first, last;	/* what the archive holds */
	struct fetch_set	fetch;
	bool			skip;		/* not read: --partial, or read before a crash */
	const struct archive_resume *resume;	/* read on after a crash */
	int			damaged;	/* damage seen: the profile is partial */
	int			cut;		/* left out: a volume it cannot be opened
						   with (-1: none) */
	char			cut_why[PM_MAXERRMSGLEN];
	char			links[PATH_MAX];	/* of the volumes before cut */
	bool			head_only;	/* opening it whole crashed a reader */
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

/* Volume links go under $TMPDIR unless an isolated reader's parent
 * gave a directory it cleans up after a crash. */
static const char *
archive_scratch_default(void)
{
	const char	*t = getenv("TMPDIR");

	return t && t[0] == '/' ? t : "/tmp";
}

/*
 * Open a->path as the current context, its label and its end.  Damage
 * that fails this (libpcp reads the last volume to find the end) leaves
 * the volumes before the damaged one: a context over them, a->cut the
 * volume left out.  -1 with "archive PATH: why" in err.
 */
static int
context_open(struct archive *a, const struct archive_options *o, pmHighResLogLabel *label,
	     struct timespec *last, char *err, size_t errlen)
{
	struct archive_files	f;
	const char		*what = "archive";
	int			sts = 0;

	if (a->head_only) {	/* the whole crashed a reader: o->resume says why */
		a->ctx = -1;
		what = "cannot open archive";
	} else if ((a->ctx = pmNewContext(PM_CONTEXT_ARCHIVE, a->path)) < 0) {
		sts = a->ctx;
		what = "cannot open archive";
	} else if ((sts = pmGetHighResArchiveLabel(label)) >= 0 &&
		   (sts = pmGetHighResArchiveEnd(last)) >= 0)
		return 0;
	if ((a->head_only || sts <= PM_ERR_BASE) && archive_files_find(a->path, &f) == 0) {
		if (a->ctx >= 0)
			pmDestroyContext(a->ctx);
		a->ctx = archive_open_head(&f, o->scratch ? o->scratch : archive_scratch_default(),
					   a->links, sizeof(a->links), &a->cut);
		archive_files_free(&f);
		if (a->ctx >= 0) {
			if (a->head_only)
				snprintf(a->cut_why, sizeof(a->cut_why), "%s", o->resume->why);
			else
				pmErrStr_r(sts, a->cut_why, sizeof(a->cut_why));
			pmGetHighResArchiveLabel(label);
			return pmGetHighResArchiveEnd(last) < 0 ? -1 : 0;
		}
	}
	if (a->head_only)
		snprintf(err, errlen, "%s %s: %s, and its first volumes cannot be opened", what,
			 a->path, o->resume->why);
	else
		snprintf(err, errlen, "%s %s: %s", what, a->path, pmErrStr(sts));
	return -1;
}

static int window_check(struct archive *a, const struct archive_options *o, char *err,
			size_t errlen);

/*
 * Open archive a as the current context and work out its window from
 * o's -S/-T/-A/-O text and -z: the context, the archive's host, and the
 * window [start, end], rounded to microseconds as records are stamped.
 * -1 with "archive PATH: why" in err, also for an empty window.
 */
static int
window_open(struct archive *a, const struct archive_options *o, char *err, size_t errlen)
{
	pmHighResLogLabel	label;
	struct timespec		last, start, end, origin;
	char			*msg = NULL;
	const char		*path = a->path;
	int			sts;

	if (context_open(a, o, &label, &last, err, errlen) < 0)
		return -1;
	snprintf(a->host, sizeof(a->host), "%s", label.hostname);
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
	timespec_to_usec(&start, &a->start);
	timespec_to_usec(&end, &a->end);
	a->first = (double)label.start.tv_sec + label.start.tv_nsec / 1e9;
	a->last = (double)last.tv_sec + last.tv_nsec / 1e9;
	return window_check(a, o, err, errlen);
}

/*
 * An empty window, said by its cause: a start after what the archive
 * holds, an end before it, or -S and -T swapped.  pmParseTimeWindow
 * clips -T to the archive's end and -S to its start, so the cause is
 * read from which side is still outside.
 */
static int
window_check(struct archive *a, const struct archive_options *o, char *err, size_t errlen)
{
	double	s = tv_secs(&a->start), e = tv_secs(&a->end);
	char	first[64], last[64], at[64];

	if (s < e)
		return 0;
	zone_time(a->first, first, sizeof(first));
	zone_time(a->last, last, sizeof(last));
	if (o->start && s >= a->last) {
		zone_time(s, at, sizeof(at));
		snprintf(err, errlen, "archive %s: -S %s (%s) is after the archive's end (%s); "
			 "it holds %s to %s: give an earlier -S", a->path, o->start, at, last,
			 first, last);
	} else if (o->finish && e <= a->first) {
		zone_time(e, at, sizeof(at));
		snprintf(err, errlen, "archive %s: -T %s (%s) is before the archive's start (%s); "
			 "it holds %s to %s: give a later -T", a->path, o->finish, at, first,
			 first, last);
	}
	else if (o->start && o->finish)
		snprintf(err, errlen, "archive %s: -S %s is not before -T %s: the start goes "
			 "with -S, the end with -T", a->path, o->start, o->finish);
	else
		snprintf(err, errlen, "archive %s: empty time range: it holds %s to %s",
			 a->path, first, last);
	return -1;
}

/*
 * Archives of one host add up (source_archive.c's header): two that
 * overlap in time count the overlap twice, which is right only if they
 * logged different metrics.  Say so; pmlogger's daily archives never
 * overlap, a copy of one does.
 */
static void
warn_overlaps(const struct archive *v, int n)
{
	char	from[64], to[64];
	int	i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			double lo = v[i].first > v[j].first ? v[i].first : v[j].first;
			double hi = v[i].last < v[j].last ? v[i].last : v[j].last;

			if (strcmp(v[i].host, v[j].host) != 0 || lo >= hi)
				continue;
			zone_time(lo, from, sizeof(from));
			zone_time(hi, to, sizeof(to));
			fprintf(stderr, "%s: warning: archives %s and %s of host %s overlap from %s "
				"to %s: their samples there are counted twice; give one of them, "
				"or -S/-T outside the overlap\n", pmGetProgname(), v[i].path,
				v[j].path, v[i].host, from, to);
		}
}

/* Open one archive, its window and the metrics c needs in it. */
static int
archive_open(struct archive *a, const struct archive_options *o,
	     const struct source_consumer *c, char *err, size_t errlen)
{
	char	where[PATH_MAX + 16];

	if (window_open(a, o, err, errlen) < 0)
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

/*
 * Where a history is read from: the keyframe at or before the window's
 * edge (seek: the first pass over the archive, with -S), else the
 * archive's start, where its definitions are.  A keyframe seek that
 * fails is only slower: the start always serves.
 */
static double
history_begin(const struct archive *a, const struct archive_options *o,
	      const struct source_consumer *c, bool seek)
{
	double		edge = tv_secs(&a->start) - (c->counters ? SOURCE_EDGE : 0);
	struct timeval	first = { (time_t)floor(a->first), 0 }, at;
	unsigned	back;

	if (!seek || !o->seek || o->start == NULL || edge <= a->first ||
	    archive_keyframe(a->fetch.history, &first, edge, &at, &back) != 0)
		return 0;
	if (pmDebugOptions.appl0)	/* qa 233-235 check where reading began */
		fprintf(stderr, "%s: archive %s: history read from the keyframe at %.6f, "
			"%u results before the range\n", pmGetProgname(), a->path, tv_secs(&at),
			back);
	return tv_secs(&at);
}

/* Read from where the window (or, for heat maps, its edge) starts; a
 * history from a keyframe before it or the archive's start. */
static int
archive_rewind(const struct archive *a, const struct archive_options *o,
	       const struct source_consumer *c, bool seek)
{
	double		begin;
	struct timeval	tv;
	int		sts;

	if ((sts = pmUseContext(a->ctx)) < 0)
		return sts;
	begin = a->fetch.hist != NULL ? history_begin(a, o, c, seek) :
		tv_secs(&a->start) - (c->counters ? SOURCE_EDGE : 0);
	tv.tv_sec = (time_t)floor(begin);
	tv.tv_usec = (suseconds_t)((begin - floor(begin)) * 1e6 + 0.5);
	if (tv.tv_usec >= 1000000) {
		tv.tv_sec++;
		tv.tv_usec -= 1000000;
	}
	return pmSetMode(PM_MODE_FORW, c->counters || a->fetch.hist ? &tv : &a->start, 0);
}

/* An isolated reader tells its parent where it is (d NULL: opening). */
static void
progress(const struct archive_options *o, const struct archive *a,
	 const struct archive_damage *d, double t)
{
	struct archive_progress	p = { a->order, d == NULL,
				      d && d->have_files ? d->files.prefix : NULL, t };

	if (o->progress)
		o->progress(o->progress_arg, &p);
}

/* What one reading pass through a context needs and gives. */
struct pass {
	struct fetch_range	r;
	struct fetch_counts	n;
	struct archive_damage	d;
	double			last;		/* the last result read; NAN before */
	int			broken;		/* the PCP error a fetch failed with */
	bool			eol;		/* the context ended (not the range) */
};

/*
 * Hand over the results of the current context until the range ends, the
 * archive ends, or a fetch fails (p->broken).  Records are queued in drain
 * order, so the first one after the range ends it; heat maps also stop at
 * the first fetch SOURCE_EDGE after the window.  0 or the consumer's error.
 */
static int
read_results(struct archive *a, const struct archive_options *o,
	     const struct source_consumer *c, struct pass *p)
{
	double		start = tv_secs(&a->start), edge = tv_secs(&a->end) + SOURCE_EDGE;
	bool		first = true;	/* a context's first fetch: a counter baseline */
	pmResult	*rp;
	int		sts = 0;

	p->broken = 0;
	p->eol = false;
	while (sts == 0 && p->n.records.after == 0) {
		double	t;

		if ((sts = pmFetch(a->fetch.npmids, a->fetch.pmids, &rp)) < 0) {
			p->broken = sts == PM_ERR_EOL ? 0 : sts;
			p->eol = sts == PM_ERR_EOL;
			return 0;
		}
		t = tv_secs(&rp->timestamp);
		if (c->counters && t > edge) {
			pmFreeResult(rp);
			return 0;
		}
		p->n.decode_error = 0;
		if ((sts = archive_damage_read(&p->d, t, c)) == 0)
			sts = fetch_deliver(&a->fetch, rp, a->host, &p->r, first || t <= start,
					    c, &p->n);
		pmFreeResult(rp);
		if (sts == 0 && p->n.decode_error)
			sts = archive_damage_result(&p->d, p->n.decode_error, p->last, t, c);
		first = false;
		p->last = t;
		progress(o, a, &p->d, t);	/* all of this result is handed over */
	}
	return sts;
}

/* Read on from ctx (volumes after damage): it becomes the archive's; a
 * history from its start (what was read before must not come again). */
static int
switch_context(struct archive *a, int ctx, const struct archive_options *o,
	       const struct source_consumer *c)
{
	pmDestroyContext(a->ctx);
	a->ctx = ctx;
	return archive_rewind(a, o, c, false);
}

/*
 * Read the archive: from its window's start, or where a crashed reader
 * stopped (a->resume); past damage to the next volume each time, and past
 * the volume it could not be opened with (p->d.cut) when reading gets there.
 */
static int
read_past_damage(struct archive *a, const struct archive_options *o,
		 const struct source_consumer *c, struct pass *p)
{
	const char	*scratch = o->scratch ? o->scratch : archive_scratch_default();
	int		ctx, sts = 0;

	if (a->resume) {
		p->last = a->resume->after;
		ctx = archive_damage_resume(&p->d, a->resume->volume, p->last, a->resume->why,
					    scratch);
		if (ctx < 0)
			return 0;
		p->broken = switch_context(a, ctx, o, c);
	} else
		p->broken = archive_rewind(a, o, c, true);
	for (;;) {
		if (p->broken == 0 && (sts = read_results(a, o, c, p)) < 0)
			return sts;
		if (p->broken == 0 && p->eol && p->d.cut >= 0)
			ctx = archive_damage_cut(&p->d, p->last, scratch);
		else if (p->broken == 0)
			return 0;
		else
			ctx = archive_damage_fetch(&p->d, p->broken, p->last, scratch);
		if (ctx < 0)
			return 0;
		p->broken = switch_context(a, ctx, o, c);
	}
}

/*
 * Hand over every record of the archive's window (and its heat map
 * counters); widen w to the records.  Damage costs what it breaks (said,
 * and a gap); the rest is read.  0, or the consumer's error.
 */
static int
archive_read(struct archive *a, const struct archive_options *o,
	     const struct source_consumer *c, struct window *w)
{
	struct pass	p = { .n = { .records = { .first = INFINITY }, .first = INFINITY },
			      .last = NAN };
	int		sts;

	archive_range(a, o, c, &p.r);
	archive_damage_init(&p.d, a->path, a->host, tv_secs(&a->start), tv_secs(&a->end));
	p.d.cut = a->cut;
	p.d.cut_why = a->cut_why;
	progress(o, a, &p.d, NAN);
	if ((sts = read_past_damage(a, o, c, &p)) == 0)
		sts = archive_damage_end(&p.d, c);
	a->damaged += p.d.count;
	archive_damage_free(&p.d);
	if (sts < 0)
		return sts;
	if (p.n.records.malformed)
		fprintf(stderr, "%s: warning: archive %s: %lu records without stack or count\n",
			pmGetProgname(), a->path, p.n.records.malformed);
	if (p.n.bad_heat)
		fprintf(stderr, "%s: warning: archive %s: %lu fetches of %s with unexpected "
			"instances, skipped\n", pmGetProgname(), a->path, p.n.bad_heat,
			HEATMAP_METRIC);
	if (p.n.in_window > 0 && p.n.first < w->start)
		w->start = p.n.first;
	if (p.n.in_window > 0 && p.n.last > w->end)
		w->end = p.n.last;
	return 0;
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

/*
 * One host's archives v[i..j) as one window; begun: a crashed reader
 * already began it (its parent has it open).
 */
static int
host_read(struct archive *v, int i, int j, bool begun, const struct archive_options *o,
	  const struct source_consumer *c)
{
	struct window	w = host_window(v, i, j);
	int		sts = c->begin && !begun ? c->begin(c->arg, &w) : 0;

	for (; i < j && sts == 0; i++)
		if (!v[i].skip)
			sts = archive_read(&v[i], o, c, &w);
	return sts == 0 ? c->end(c->arg, &w) : sts;
}

/*
 * Open archive i (command-line order).  With --partial one that cannot be
 * opened, or that a crashed reader could not open, is skipped.
 */
static int
open_one(struct archive *a, const struct archive_options *o,
	 const struct source_consumer *c, char *err, size_t errlen)
{
	const struct archive_resume	*r = o->resume;

	if (r && archive_listed(r->unopenable, r->nunopenable, a->order)) {
		fprintf(stderr, "%s: archive %s: libpcp crashed opening it; skipped "
			"(--partial)\n", pmGetProgname(), a->path);
		a->skip = true;
		a->damaged++;
		return 0;
	}
	a->head_only = r && archive_listed(r->headonly, r->nheadonly, a->order);
	progress(o, a, NULL, NAN);
	if (archive_open(a, o, c, err, errlen) == 0)
		return 0;
	if (!o->partial)
		return -1;
	fprintf(stderr, "%s: %s; skipped (--partial)\n", pmGetProgname(), err);
	err[0] = '\0';
	a->skip = true;
	a->damaged++;
	return 0;
}

/*
 * A crashed reader's successor: the archives read before the one it
 * crashed in are done, that one goes on after its damaged volume.
 * Returns the index where reading starts, or -1 from the start.
 */
static int
resume_point(struct archive *v, int n, const struct archive_resume *r)
{
	int	i, k;

	if (r == NULL || !r->reading)
		return -1;
	for (k = 0; k < n && v[k].order != r->order; k++)
		;
	if (k == n)
		return -1;
	for (i = 0; i < k; i++)
		v[i].skip = true;
	v[k].resume = r;
	return k;
}

/* By host, skipped archives last (they have none). */
static int
by_host(const void *x, const void *y)
{
	const struct archive	*a = x, *b = y;
	int			c = (int)a->skip - (int)b->skip;

	if (c == 0)
		c = strcmp(a->host, b->host);
	return c ? c : a->order - b->order;
}

static int
read_hosts(struct archive *v, int n, const struct archive_options *o,
	   const struct source_consumer *c)
{
	int	i, j, k, sts = 0;

	qsort(v, (size_t)n, sizeof(*v), by_host);
	while (n > 0 && v[n - 1].skip)
		n--;
	k = resume_point(v, n, o->resume);
	for (i = 0; i < n && sts == 0; i = j) {
		for (j = i; j < n && strcmp(v[j].host, v[i].host) == 0; j++)
			;
		if (j > k)	/* hosts before the crash are done */
			sts = host_read(v, i, j, k >= i, o, c);
	}
	return sts;
}

int
source_archive_read(const struct archive_options *o, const struct source_consumer *c,
		    char *err, size_t errlen)
{
	struct archive	*v;
	int		i, damaged = 0, sts = 0;

	if (o->isolate)
		return archive_child_read(source_archive_read, o, c, err, errlen);
	if ((v = calloc((size_t)o->narchives, sizeof(*v))) == NULL) {
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
		v[i].cut = -1;
	}
	/* open them all first: a bad archive fails the run before any output */
	for (i = 0; i < o->narchives && sts == 0; i++)
		sts = open_one(&v[i], o, c, err, errlen);
	if (sts == 0 && o->resume == NULL)	/* a resumed child said it already */
		warn_overlaps(v, o->narchives);
	if (sts == 0)
		sts = read_hosts(v, o->narchives, o, c);
	if (sts < 0 && sts != -1 && err[0] == '\0')
		snprintf(err, errlen, "%s", strerror(-sts));
	for (i = 0; i < o->narchives; i++) {
		damaged += v[i].damaged;
		fetch_free(&v[i].fetch);
		if (v[i].ctx >= 0)
			pmDestroyContext(v[i].ctx);
		archive_links_remove(v[i].links);
	}
	free(v);
	return sts < 0 ? -1 : damaged > 0;
}
