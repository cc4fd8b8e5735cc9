/*
 * sample.h - one aggregated stack, as every source (folded file, pmcd,
 * archive) hands it to the selection.  Strings belong to the source and
 * live only for the duration of the callback.
 */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <stdint.h>

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
};

/* Returns 0 to go on, or a negative errno to stop the source. */
typedef int (*stack_sample_fn)(void *arg, const struct stack_sample *s);

#endif /* SAMPLE_H */
