/*
 * drain.h - one drain: empty the sampler's retired generation, name every
 * frame, and publish the interval (window, event queue, counters).
 */
#ifndef DRAIN_H
#define DRAIN_H

/* Called by main.c every stackprof.control.interval ms. */
void drain_run(void);

/* fn answers whatever pmcd has sent, without waiting; drain_run calls it
 * between stacks while it names frames, so a long drain never leaves pmcd
 * without an answer. */
void drain_set_service(void (*fn)(void));

/* A sampler_stack_fn for stacks handed over outside drain_run (by
 * sampler_reconfigure): they are kept and published by the next drain. */
struct sampled_stack;
void drain_keep_stack(void *arg, const struct sampled_stack *st);

/* Build the folded frame list of a stack into *buf (grown as needed):
 * user frames outermost first, then kernel frames outermost first.
 * Exposed for the unit tests. */
struct sampled_stack;
struct symbolizer;
int drain_fold_stack(struct symbolizer *sym, const struct sampled_stack *st,
		     char **buf, size_t *cap);

#endif /* DRAIN_H */
