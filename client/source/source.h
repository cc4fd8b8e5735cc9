/*
 * source.h - where stacks come from: a folded-stacks file, pmcd hosts
 * (live), or pmlogger archives.  Each hands stack_samples to a callback.
 */
#ifndef SOURCE_H
#define SOURCE_H

#include <stddef.h>
#include <stdbool.h>
#include "common/sample.h"

/*
 * Folded stacks ("frame;frame;... count" lines) from path, or stdin for
 * "-".  Lines "Total;[p] name;..." (pmflame's own host view) are taken
 * apart again, so pmflame reads back what it writes.  Microseconds are
 * count * 10^6 / frequency.  host labels the samples.  The whole input is
 * checked: on a malformed line, -1 and "PATH:LINE: why" in err.
 */
int source_folded_read(const char *path, const char *host, unsigned frequency,
		       stack_sample_fn fn, void *arg, char *err, size_t errlen);

/* Names of the metric and its record parameters for one event type. */
struct event_metrics {
	const char	*event;		/* "on-cpu" */
	const char	*stacks;	/* stackprof.oncpu.stacks */
	const char	*prefix;	/* stackprof.oncpu.record. */
};
/* NULL if stackprof exports no such event. */
const struct event_metrics *event_metrics_find(const char *event);

/*
 * pmapi sources.  A window is what one output covers; the live source
 * calls window_fn at every period end (and once at the end), the archive
 * source once per archive host.
 */
struct window {
	const char	*host;		/* NULL: all hosts of the source */
	double		start, end;	/* seconds since the epoch */
};
typedef int (*window_fn)(void *arg, const struct window *w);

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

/* Poll every host until duration or SIGINT/SIGTERM.  -1 with err on failure. */
int source_live_run(const struct live_options *o, stack_sample_fn fn,
		    window_fn wfn, void *arg, char *err, size_t errlen);

struct archive_options {
	char		**archives;
	int		narchives;
	const char	*start, *finish, *align, *origin;	/* -S -T -A -O text */
	const char	*timezone;	/* -Z */
	bool		hostzone;	/* -z */
	const struct event_metrics *metrics;
};

/*
 * Open archive path as the current context and work out its window from
 * o's -S/-T/-A/-O text and -z: the context, the archive's host, and the
 * window [from, to], rounded to microseconds as records are stamped.  -1
 * with "archive PATH: why" in err, also for an empty window.
 */
struct timeval;
int source_archive_open(const char *path, const struct archive_options *o, int *ctx,
			char *host, size_t hostlen, struct timeval *from, struct timeval *to,
			char *err, size_t errlen);

/*
 * Sum the records of every archive whose timestamps fall in (start, end],
 * then call wfn for it.  -1 with err on failure (nothing was handed to wfn
 * for the failing archive).
 */
int source_archive_read(const struct archive_options *o, stack_sample_fn fn,
			window_fn wfn, void *arg, char *err, size_t errlen);

/* Set by the SIGINT/SIGTERM handler: sources stop at the next chance. */
extern volatile int source_stop;

#endif /* SOURCE_H */
