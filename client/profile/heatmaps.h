/*
 * heatmaps.h - one heat map per host, fed by the same pmapi sources and
 * selection as the flame graphs (every fetch's stackprof.heatmap.oncpu
 * counters, the stack records) and taken as profiles of kind
 * PROFILE_HEATMAP when a window ends: the heat map is a format like any
 * other (docs/design.md, "Heat maps").
 */
#ifndef HEATMAPS_H
#define HEATMAPS_H

#include <stddef.h>
#include "common/sample.h"
#include "select.h"

struct heatmaps;

/* filter: --process/--pid/--event for the stacks (the counters are the
 * PMDA's, for every process it samples); NULL keeps every stack. */
struct heatmaps *heatmaps_new(const struct selection *filter);
void heatmaps_free(struct heatmaps *h);

/*
 * A window opens.  With a host (archives) its heat map covers exactly the
 * seconds of [start, end); without (live) the heat maps of every host grow
 * with the data until the window ends.  0 or -ENOMEM.
 */
int heatmaps_begin(struct heatmaps *h, const struct window *w);

/* A heat_counters_fn and a stack_sample_fn: arg is the heatmaps.  0,
 * -ENOMEM, or -E2BIG (more than HEATMAP_MAX_CELLS). */
int heatmaps_counters(void *h, const struct heat_counters *c);
int heatmaps_add(void *h, const struct stack_sample *s);

/*
 * The heat maps of the window that ended (of w->host, or every host),
 * finished, as profiles sorted by host, named "Total", from w's start to
 * its end (an archive's: the window begun).  Counters carry on into the
 * next window, so live periods follow each other without a gap.
 */
int heatmaps_take(struct heatmaps *h, const struct window *w, struct profile **p, size_t *n);

#endif /* HEATMAPS_H */
