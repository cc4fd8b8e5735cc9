/*
 * history.h - decode stackprof.<event>.history values (docs/design.md,
 * "History value") into stack_samples.
 *
 * A value defines thread, frame and stack ids the reader has not been told
 * yet (a stack by its frames' ids) and gives counts per (thread, stack)
 * for the drains since the previous value, stamped with the newest
 * drain's time.  The reader keeps the
 * definitions for the values after it: an archive is read from its start
 * (definitions come once) or from a keyframe, a value that defines again
 * every id it uses; a redefined id (a restarted PMDA numbers anew)
 * replaces the old meaning.
 */
#ifndef SOURCE_HISTORY_H
#define SOURCE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/sample.h"
#include "records.h"

struct history_reader;

/* µs of count at hz, the event's rule for counts without an explicit value. */
typedef uint64_t (*history_value_fn)(uint64_t count, unsigned hz);

/* Samples are labelled event ("on-cpu").  NULL when out of memory. */
struct history_reader *history_reader_new(const char *event, history_value_fn value);
void history_reader_free(struct history_reader *r);

/* One drain's heat map ("h" line): samples per slice of the second (n
 * slices, slice 0 first) since the drain before, at time t. */
typedef int (*history_heat_fn)(void *arg, double t, const uint64_t *counts, unsigned n);

/*
 * Read one value: keep its definitions, hand each count to fn (through
 * records_offer: (from, to] on the value's drain time, counted in *c) and
 * each heat line to heat (when not NULL; every one: heat maps clip their
 * own window).  A malformed line, or a count naming an id never defined,
 * is skipped and counted in c->malformed; the rest of the value is still
 * read.  Returns 0, fn's or heat's negative result, or -ENOMEM.
 */
int history_deliver(struct history_reader *r, const char *text, const char *host,
		    double from, double to, stack_sample_fn fn, void *arg,
		    history_heat_fn heat, void *heat_arg, struct record_counts *c);

/*
 * Whether the len bytes at text (a value, not necessarily NUL-ended) are
 * a keyframe: a header that parses and ends in " key".  A reader that
 * starts there needs nothing of the values before it.
 */
bool history_is_keyframe(const char *text, size_t len);

/*
 * The period a keyframe states ("period P key"): its PMDA writes one at
 * the first value after each multiple of P seconds since the epoch, so a
 * reader finds the one before a time without reading backwards.  0: a
 * keyframe that states none (an older PMDA, periods counted from each
 * client's start); -1: not a keyframe.
 */
int history_keyframe_period(const char *text, size_t len);

#endif /* SOURCE_HISTORY_H */
