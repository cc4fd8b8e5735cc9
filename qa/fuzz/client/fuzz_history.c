/*
 * fuzz_history.c - stackprof.<event>.history values as pmflame decodes
 * them from an archive (client/source/history.c): text a damaged or
 * hostile archive can fill with anything.  The input is split at NUL
 * bytes into successive values read by one reader, so definitions made by
 * one value are used (and redefined) by the next, as in an archive.
 * Beyond "no crash": every sample has a stack, names and a time, and
 * every heat line has 1..1000 slices dividing the second.
 */
#include <math.h>
#include "fuzz.h"
#include "source/history.h"

static volatile size_t seen;

static int
take(void *arg, const struct stack_sample *s)
{
	(void)arg;
	if (s->stack == NULL || s->process == NULL || s->thread == NULL || isnan(s->time))
		abort();
	seen += strlen(s->stack) + strlen(s->process) + strlen(s->thread);
	return 0;
}

static int
heat(void *arg, double t, const uint64_t *counts, unsigned n)
{
	(void)arg;
	(void)t;
	if (n == 0 || n > 1000 || 1000 % n != 0)
		abort();
	seen += (size_t)counts[n - 1];
	return 0;
}

static uint64_t
samples_us(uint64_t count, unsigned hz)
{
	return hz ? count * 1000000u / hz : 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct history_reader	*r = history_reader_new("on-cpu", samples_us);
	struct record_counts	c = { .first = INFINITY, .last = -INFINITY };
	char			*text = malloc(size + 1);
	size_t			at = 0;

	if (r == NULL || text == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	while (at <= size) {
		history_deliver(r, text + at, "host", -INFINITY, INFINITY, take, NULL, heat, NULL, &c);
		at += strlen(text + at) + 1;
	}
	free(text);
	history_reader_free(r);
	return 0;
}
