/*
 * history.h - the stack history of one profile (stackprof.oncpu.history):
 * what each client has not seen yet, coalesced to its own fetches.
 *
 * Each drain appends one batch of (thread, stack, count, µs) items.  At a
 * fetch, a client gets one string: the batches drained since its last
 * fetch summed per (thread, stack), with the definitions of the threads,
 * frames and stacks that client has not been told yet.  They are numbered
 * once, in dictionaries shared by every client (a stack by its frames'
 * ids, so stacks that share frames share their names); a client (pmlogger)
 * is told each definition the first time it meets its id, so an archive
 * holds each frame's name once, and every second only ids and counts.
 * The text format is in docs/design.md ("History value");
 * for example:
 *
 *   drains 1 1733011201.304309 hz 99
 *   t 3 4711 4712 python3	python3
 *   f 5 [l] __libc_start_call_main
 *   f 6 main
 *   s 17 5,6
 *   s 18 ^2 7
 *   3 17 18:4 19:2:20203
 *   h 1733011201.304309 50 2*48 1
 *
 * (thread 3 ran stack 17 once, 18 four times, 19 twice (ids ascend on
 * a line; one may be written "+D", D past the id before, where shorter); stack 18 is the
 * first 2 frames of the stack defined before it, then frame 7; a count's
 * µs are written only where they differ from the profile's rule, here
 * count * 10^6 / hz; the heat line's "2*48" is 2 in 48 slices.)
 */
#ifndef HISTORY_H
#define HISTORY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>

struct history;

/* µs of count for a profile at a sampling rate (the profile table's rule). */
typedef uint64_t (*history_value_fn)(uint64_t count, unsigned hz);

/* maxmem bounds the batches kept for clients that have not fetched them;
 * NULL when out of memory. */
struct history *history_new(history_value_fn value, size_t maxmem);
void history_free(struct history *h);

/*
 * Keyframes: every s seconds (of the drains' now; 0: never) a client's
 * next text defines again every id it uses, as a client's first text
 * does, and says so ("key" in its header; its first text says it too).
 * A reader can start at any keyframe instead of at the archive's start.
 */
void history_set_keyframe(struct history *h, unsigned s);

/*
 * One drain: begin, add each merged stack, end.  when stamps the drain;
 * now (CLOCK_MONOTONIC seconds) dates the ids it uses, for forgetting
 * those unused for long.  Names must already be
 * sanitized (no control characters); any that slip through are written as
 * '?', so the text always parses.  history_add: 0 or -ENOMEM (the stack
 * is then missing from this drain's batch, counted in the stats).  gen is
 * the lifetime of pid (lifetime.h): a thread is defined as "PID" or
 * "PID.GEN", so a reused PID's process is another thread and process.
 */
void history_begin(struct history *h, const struct timeval *when, unsigned hz, time_t now);
int history_add(struct history *h, pid_t pid, unsigned gen, pid_t tid, const char *comm,
		const char *process, const char *stack, uint64_t count, uint64_t value_us);
void history_end(struct history *h);
/*
 * The drain's heat map: samples per slice of the second (n slices) since
 * the previous drain, written as its own line "h SEC.USEC N C0 C1 ..."
 * (the drain's time; trailing zero counts left out), one per drain even
 * when drains are summed, so a heat map keeps one-second columns.  Call
 * between begin and end; a drain without it has no heat line.
 */
int history_heat(struct history *h, const uint64_t *delta, unsigned n);

/*
 * The text for client context: what it has not seen since its last fetch
 * (its first fetch starts it and gets nothing).  *text stays valid until the next call; 0 with
 * *text NULL when there is nothing new; -ENOMEM.
 */
int history_fetch(struct history *h, int context, const char **text, size_t *len);
void history_client_end(struct history *h, int context);

/*
 * The last drain as instances grafana-pcp's flame-graph panel draws (the
 * form pmdabpftrace exports): one per (thread, stack), its name the
 * frames one per line, innermost first, as bpftrace prints a stack
 * ("\n    leaf\n    ...\n    [t] COMM TID\n    PROCESS PID\n"), its value the
 * drain's count.  An instance id stays with its (thread, stack) until the
 * pair is forgotten.  Built on demand (nothing is kept for it until a
 * client asks), sorted by inst; valid until the next history_end.
 * Returns the number of instances (0 also when out of memory).
 */
struct history_flame {
	int		inst;
	const char	*name;
	uint64_t	count;
};
size_t history_flame(struct history *h, const struct history_flame **v);

struct history_stats {
	uint64_t	batches;	/* drains appended */
	uint64_t	dropped;	/* batches freed before some client fetched them */
	uint64_t	lost;		/* stacks left out for want of memory */
	uint64_t	threads, stacks;	/* ids in the dictionaries now */
	uint64_t	queued_bytes;	/* batches kept for clients */
	uint64_t	text_bytes;	/* history text handed to clients */
};
void history_get_stats(const struct history *h, struct history_stats *st);

/* The history's stats (history_stats.c), over struct history_stats. */
struct stat_table;
extern const struct stat_table history_stat_table;

#endif /* HISTORY_H */
