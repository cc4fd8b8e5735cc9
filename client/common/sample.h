/*
 * sample.h - what every source (folded file, pmcd, archive) hands to the
 * profiles it feeds: aggregated stacks, the heat map's counters, and the
 * windows that say when an output is complete.  Strings belong to the
 * source and live only for the duration of the callback.
 */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * A stack a source split and hashed itself (folded input does, on a
 * thread of its own), so that a profile only looks its frames up: frame
 * i is the lens[i] bytes at names[i] (not NUL-terminated), hashes[i]
 * their hash_bytes() (lib/hash.h).
 */
struct stack_frames {
	const char *const	*names;
	const uint32_t		*lens;
	const uint64_t		*hashes;
	uint32_t		n;
};

struct stack_sample {
	const char	*host;		/* pmcd host, archive host, or input label */
	const char	*process;	/* process name: the profile's root */
	const char	*thread;	/* thread name, NULL when the stack carries it */
	const char	*stack;		/* frames outermost first, ';'-separated */
	const char	*event;		/* "on-cpu" */
	uint32_t	pid, tid;	/* 0 when unknown (folded input) */
	uint64_t	count;		/* samples */
	uint64_t	value_us;	/* microseconds, DeepFlow's unit */
	double		time;		/* record timestamp (s since epoch), 0 if none */
	uint32_t	gen;		/* which process of a reused pid: 0 the
					 * first the PMDA saw, then 1, 2, ... */
	const struct stack_frames *frames;	/* NULL, or the stack split */
};

/* Returns 0 to go on, or a negative errno (or -1 with a message where the
 * caller gave a buffer) to stop the source. */
typedef int (*stack_sample_fn)(void *arg, const struct stack_sample *s);

/* The next non-empty frame of a stack's text from *at (end: the stack's
 * end): its first byte, and its length in *len; *at moves past it.  NULL
 * when none is left. */
static inline const char *
stack_next_frame(const char **at, const char *end, size_t *len)
{
	while (*at <= end) {
		const char	*f = *at, *semi = memchr(f, ';', (size_t)(end - f));

		if (semi == NULL)
			semi = end;
		*at = semi + 1;
		if ((*len = (size_t)(semi - f)) > 0)
			return f;
	}
	return NULL;
}

/*
 * One fetch of stackprof.heatmap.oncpu: the cumulative samples of each
 * slice of the wall-clock second, as the PMDA counted them at time.
 */
struct heat_counters {
	const char	*host;
	double		time;		/* the fetch's timestamp */
	const uint64_t	*values;	/* slice 0 (start of the second) first */
	unsigned	n;		/* slices */
	double		drain;		/* seconds one stack record covers
					 * (stackprof.control.interval) */
	bool		restart;	/* a new series (an archive's first fetch, or
					 * before its window): a baseline, no delta */
};
typedef int (*heat_counters_fn)(void *arg, const struct heat_counters *c);

/*
 * What one output covers.  A live source opens a window at the start and
 * after every --period, for all its hosts; an archive source one per host,
 * over the requested range (end is INFINITY while a live window is open).
 */
struct window {
	const char	*host;		/* NULL: all hosts of the source */
	double		start, end;	/* seconds since the epoch */
};
typedef int (*window_fn)(void *arg, const struct window *w);

/*
 * A stretch of time a source has no data for, and why: pmcd or its agent
 * restarted under a live run (what the old agent had not handed over is
 * lost), or an archive is damaged there.  The profiles of the window it
 * falls in say so.  A live source reports one still open at a window's end
 * with end = that end, and again, whole, once data is back.
 */
struct data_gap {
	const char	*host;
	double		start, end;	/* seconds since the epoch */
	const char	*why;		/* "pmcd restarted", "partial: archive ..." */
};
typedef int (*gap_fn)(void *arg, const struct data_gap *g);

#endif /* SAMPLE_H */
