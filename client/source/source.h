/*
 * source.h - where stacks come from: a folded-stacks file, pmcd hosts
 * (live), or pmlogger archives.  Each hands stack_samples to a callback.
 */
#ifndef SOURCE_H
#define SOURCE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include "common/sample.h"

/*
 * Folded stacks ("frame;frame;... count" lines) from path, or stdin for
 * "-".  Lines "Total;[p] name;..." (pmflame's own host view) and
 * "Total;[h] host;[p] name;..." (its fleet view: that host's samples) are
 * taken apart again, so pmflame reads back what it writes.  Microseconds are
 * count * 10^6 / frequency.  host labels the samples.  The whole input is
 * checked: on a malformed line, -1 and "PATH:LINE: why" in err.
 */
int source_folded_read(const char *path, const char *host, unsigned frequency,
		       stack_sample_fn fn, void *arg, char *err, size_t errlen);

/* Names of the metrics of one event type, and how its counts become µs. */
struct event_metrics {
	const char	*event;		/* "on-cpu" */
	const char	*stacks;	/* stackprof.oncpu.stacks (event records) */
	const char	*prefix;	/* stackprof.oncpu.record. */
	const char	*history;	/* stackprof.oncpu.history (archives) */
	/* µs of a history count at hz when the value gives none */
	uint64_t	(*value)(uint64_t count, unsigned hz);
};
/* NULL if stackprof exports no such event. */
const struct event_metrics *event_metrics_find(const char *event);

/*
 * What the pmapi sources hand over, and to whom: every format's data comes
 * through here, fetched by one poll loop (live) or one reading pass
 * (archives), with one error policy (docs/design.md, "pmflame").
 */
struct source_consumer {
	stack_sample_fn	sample;		/* each record of a window */
	window_fn	begin;		/* a window opens (may be NULL) */
	window_fn	end;		/* a window is complete: write it */
	/* heat maps: NULL when none is wanted, and then nothing more is fetched */
	heat_counters_fn counters;	/* each fetch of stackprof.heatmap.oncpu */
	stack_sample_fn	near;		/* records up to SOURCE_EDGE s outside an
					 * archive window: they cover its edge seconds */
	bool		stacks_optional; /* heat maps alone: a host or archive without
					 * stack records is a warning, not an error */
	bool		heat_optional;	/* counters where there are some (live.html's
					 * view files), no error where none */
	gap_fn		gap;		/* a stretch without data, before the end()
					 * of its window (may be NULL) */
	void		*arg;
};

/* Seconds read beyond an archive window's ends for heat maps: a counter
 * baseline before it, the records that cover its last second after it. */
#define SOURCE_EDGE	3.0

struct live_options {
	char		**hosts;
	int		nhosts;
	double		interval;	/* seconds between fetches */
	double		duration;	/* stop after this long; 0 = until a signal */
	double		period;		/* cut a window this often; 0 = one window */
	const struct event_metrics *metrics;
	/* called once every host is connected, before the first poll */
	int		(*ready)(void *arg, char *err, size_t errlen);
};

/*
 * Poll every host until duration or SIGINT/SIGTERM.  A failed fetch is a
 * warning (once until it changes) and polling goes on; a consumer's error
 * stops the run.  -1 with err on failure.
 */
int source_live_run(const struct live_options *o, const struct source_consumer *c,
		    char *err, size_t errlen);

/* Where an isolated reader (archive_child.c) is: opening an archive, or
 * reading it, each result handed over. */
struct archive_progress {
	int		order;		/* position on the command line */
	bool		opening;
	const char	*prefix;	/* "DIR/BASE." of its volumes, or NULL */
	double		t;		/* the last result handed over; NAN: none yet */
};

/* Where the successor of a reader that crashed (archive_child.c) starts. */
struct archive_resume {
	const int	*headonly;	/* archives (order) that crashed a reader opening */
	int		nheadonly;	/* them whole: opened without their last volume */
	const int	*unopenable;	/* archives (order) that crashed a reader */
	int		nunopenable;	/* opening even that: skipped (--partial) */
	bool		reading;	/* a reader crashed reading archive order: */
	int		order;		/* those before it (in reading order) are done, */
	int		volume;		/* it goes on after this volume (-1: unknown, */
					/* nothing more of it) */
	double		after;		/* the last result handed over; NAN: none */
	const char	*why;		/* what happened, for the gap */
};

struct archive_options {
	char		**archives;
	int		narchives;
	const char	*start, *finish, *align, *origin;	/* -S -T -A -O text */
	const char	*timezone;	/* -Z */
	bool		hostzone;	/* -z */
	const struct event_metrics *metrics;
	bool		partial;	/* --partial: an archive that cannot be opened
					 * is skipped, not the end of the run */
	bool		isolate;	/* decode in a child process (archive_child.c) */
	bool		seek;		/* with -S, a history from the keyframe before it */
	/* for the child: */
	const char	*scratch;	/* a directory for volume links; NULL: own */
	const struct archive_resume *resume;	/* NULL: from the start */
	void		(*progress)(void *arg, const struct archive_progress *p);
	void		*progress_arg;
};

/*
 * Open every archive, then per host: begin its window (the union of its
 * archives' ranges), hand over the records whose timestamps fall in
 * (start, end], and end the window.  A damaged archive gives what is
 * intact: the records before the damage and the volumes after it; what is
 * lost is a gap (c->gap), said on stderr.  Returns 0, 1 when some archive
 * was damaged (the profiles are partial), or -1 with err (nothing was
 * handed to end() for the failing host).  With o->isolate, libpcp runs in
 * a child process, so that a crash decoding a damaged archive is one more
 * damage, not the end of pmflame.
 */
int source_archive_read(const struct archive_options *o, const struct source_consumer *c,
			char *err, size_t errlen);

struct series_options {
	const char	*url;		/* pmproxy: http://HOST:PORT */
	char		**hosts;	/* -h: only these hostname labels (none: all) */
	int		nhosts;
	const char	*query;		/* --query: a pmseries expression instead */
	const char	*start, *finish, *align, *origin;	/* -S -T -A -O text */
	const struct event_metrics *metrics;
};

/* source_series_read's "no history series matched" (pmflame exits 4) */
#define SOURCE_NO_SERIES	(-2)

/*
 * The history values that pmseries holds (loaded from archives by pmproxy's
 * discovery or pmseries --load), read through pmproxy's REST API: as
 * source_archive_read, one window per host (its hostname label) over the
 * range, its values from the first (definitions come once).  -S/-T are
 * absolute, or relative to the host's first and last values.  Returns 0,
 * SOURCE_NO_SERIES or -1, with err.
 */
int source_series_read(const struct series_options *o, const struct source_consumer *c,
		       char *err, size_t errlen);

/* Set by the SIGINT/SIGTERM handler: sources stop at the next chance. */
extern volatile int source_stop;

#endif /* SOURCE_H */
