/*
 * window.h - what the last drain interval looked like, per process.
 *
 * For each process lifetime seen (lifetime.h: a reused PID is another
 * process): the folded stacks of the last completed interval
 * (stackprof.oncpu.folded), a cumulative sample counter
 * (stackprof.oncpu.samples) and the instance name "PID name" or
 * "PID.GEN name".  The instance domain lists a process for
 * WINDOW_SHOW_DRAINS drains after its last sample (so a host starting
 * processes all the time lists about the live ones); its counter is kept
 * while it is alive and for a while after its last sample, so a process
 * listed again counts on from where it was; then it is expired.
 */
#ifndef WINDOW_H
#define WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "lib/hash_chain.h"

#define WINDOW_NAME_LEN		16	/* process name, as comm */
#define WINDOW_INSTNAME_LEN	40	/* "PID.GEN name" */
#define WINDOW_SHOW_DRAINS	5	/* listed for this many drains after a sample */

struct lifetimes;

struct window_proc {
	pid_t		pid;
	unsigned	gen;		/* lifetime of pid (lifetime.h) */
	int		inst;		/* lifetime_inst(pid, gen) */
	char		name[WINDOW_NAME_LEN];
	char		instname[WINDOW_INSTNAME_LEN];
	uint64_t	samples;	/* cumulative, never reset while listed */
	char		*folded;	/* last interval, "" when none */
	size_t		folded_len;
	/* private to window.c */
	char		*building;
	size_t		building_len, building_cap;
	time_t		last_sample;
	uint64_t	last_drain;	/* the drain that published its last sample */
	struct hash_link link;		/* in the window's index, by inst */
};

struct stack_window;

/* expire_s: seconds without samples after which a dead process is dropped. */
struct stack_window *window_new(unsigned expire_s);
void window_free(struct stack_window *w);

/*
 * Add one aggregated stack of the interval being collected: a folded line
 * "process;[t] thread;frames count" for lifetime gen of process pid.
 * frames is the ';'-joined frame list; names must already be sanitized.
 */
int window_add(struct stack_window *w, pid_t pid, unsigned gen, const char *process,
	       const char *thread, const char *frames, uint64_t count);

/*
 * The interval is complete: publish the folded text, expire processes not
 * sampled for expire_s seconds that have exited or whose PID a newer
 * lifetime has (lives, may be NULL), or any not sampled for ten times that,
 * and rebuild the list of processes shown.  now is CLOCK_MONOTONIC seconds.
 */
void window_publish(struct stack_window *w, const struct lifetimes *lives, time_t now);

/* The processes listed (sampled in the last WINDOW_SHOW_DRAINS drains) in
 * instance order, valid until the next window_publish. */
size_t window_procs(const struct stack_window *w, struct window_proc *const **list);
/* Any process kept, listed or not, by instance id. */
struct window_proc *window_lookup(const struct stack_window *w, int inst);

/* Number of samples added since the window was created (all processes). */
uint64_t window_total_samples(const struct stack_window *w);

#endif /* WINDOW_H */
