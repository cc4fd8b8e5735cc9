/*
 * interval.h - merge the stacks of one drain that name the same frames.
 *
 * The kernel aggregates by stack id, and two ids can fold to the same
 * frame names (different addresses inside the same functions).  Records
 * and folded lines promise one entry per (process, thread, stack), so the
 * drain sums them here before publishing.
 */
#ifndef INTERVAL_H
#define INTERVAL_H

#include <stdint.h>
#include <sys/types.h>
#include "lib/hash_chain.h"

#define INTERVAL_NAME_LEN	17	/* comm plus NUL */

struct interval_stack {
	pid_t		pid, tid;
	unsigned	gen;		/* lifetime of pid (lifetime.h) */
	char		process[INTERVAL_NAME_LEN];
	char		thread[INTERVAL_NAME_LEN];
	uint64_t	count;
	char		*frames;
	/* private */
	struct hash_link link;			/* in the interval's index */
	struct interval_stack *order_next;
};

struct interval_stacks;

struct interval_stacks *interval_new(void);
void interval_free(struct interval_stacks *iv);

/* Add count samples of (lifetime gen of pid, tid, thread, frames); process
 * names the pid. */
int interval_add(struct interval_stacks *iv, pid_t pid, unsigned gen, pid_t tid,
		 const char *process, const char *thread, const char *frames,
		 uint64_t count);

/* Hand every merged stack to fn in first-seen order, then empty. */
void interval_flush(struct interval_stacks *iv,
		    void (*fn)(void *arg, const struct interval_stack *st), void *arg);

#endif /* INTERVAL_H */
