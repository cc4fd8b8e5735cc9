/*
 * window.h - what the last drain interval looked like, per process.
 *
 * For each process seen: the folded stacks of the last completed interval
 * (stackprof.oncpu.folded), a cumulative sample counter
 * (stackprof.oncpu.samples) and the instance name "PID name".  A process
 * stays while it is alive and for a while after its last sample, so counter
 * deltas over that time stay exact; then it is expired.
 */
#ifndef WINDOW_H
#define WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define WINDOW_NAME_LEN		16	/* process name, as comm */
#define WINDOW_INSTNAME_LEN	40	/* "PID name" */

struct window_proc {
	pid_t		pid;
	char		name[WINDOW_NAME_LEN];
	char		instname[WINDOW_INSTNAME_LEN];
	uint64_t	samples;	/* cumulative, never reset while listed */
	char		*folded;	/* last interval, "" when none */
	size_t		folded_len;
	/* private to window.c */
	char		*building;
	size_t		building_len, building_cap;
	time_t		last_sample;
	struct window_proc *next;
};

struct stack_window;

/* expire_s: seconds without samples after which a dead process is dropped. */
struct stack_window *window_new(unsigned expire_s);
void window_free(struct stack_window *w);

/*
 * Add one aggregated stack of the interval being collected: a folded line
 * "process;[t] thread;frames count" for process pid.  frames is the
 * ';'-joined frame list; names must already be sanitized.
 */
int window_add(struct stack_window *w, pid_t pid, const char *process,
	       const char *thread, const char *frames, uint64_t count);

/*
 * The interval is complete: publish the folded text, expire processes not
 * sampled for expire_s seconds that have exited (or any not sampled for ten
 * times that), and rebuild the sorted process list.  now is CLOCK_MONOTONIC
 * seconds.
 */
void window_publish(struct stack_window *w, time_t now);

/* Processes in PID order, valid until the next window_publish. */
size_t window_procs(const struct stack_window *w, struct window_proc *const **list);
struct window_proc *window_lookup(const struct stack_window *w, pid_t pid);

/* Number of samples added since the window was created (all processes). */
uint64_t window_total_samples(const struct stack_window *w);

#endif /* WINDOW_H */
