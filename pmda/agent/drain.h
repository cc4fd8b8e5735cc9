/*
 * drain.h - one drain: empty the sampler's retired generation, name every
 * frame, and publish the interval (window, event queue, counters).
 */
#ifndef DRAIN_H
#define DRAIN_H

struct agent;
struct drain;

/* The drain of agent a; it takes the stacks a's sampler hands over when it
 * is reconfigured between drains, and publishes them with the next. */
struct drain *drain_new(struct agent *a);
void drain_free(struct drain *d);

/* Called by main.c every stackprof.control.interval ms. */
void drain_run(struct drain *d);

/* fn(arg) answers whatever pmcd has sent, without waiting; drain_run calls
 * it between stacks while it names frames, so a long drain never leaves
 * pmcd without an answer. */
void drain_set_service(struct drain *d, void (*fn)(void *arg), void *arg);

/* Build the folded frame list of a stack into *buf (grown as needed):
 * user frames outermost first, then kernel frames outermost first; an
 * off-wake stack then "--", the waker's kernel frames and user frames
 * innermost first, and the waker's thread name.  1 when a user stack was
 * cut at a return address that is not code (its root, or the waker's
 * last user frame, is then "[unknown]"), 0, or -ENOMEM.  Exposed for the
 * unit tests. */
struct sampled_stack;
struct symbolizer;
int drain_fold_stack(struct symbolizer *sym, const struct sampled_stack *st,
		     char **buf, size_t *cap);

/* The drains' stats (drain_stats.c); its handle is the agent. */
struct stat_table;
extern const struct stat_table drain_stat_table;

#endif /* DRAIN_H */
