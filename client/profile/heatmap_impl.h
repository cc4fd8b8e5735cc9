/*
 * heatmap_impl.h - what heatmap.c (the matrix), heatmap_stacks.c (the
 * per-second stacks) and heatmap_columns.c (the columns both index) share.
 * Private to client/profile/.
 */
#ifndef HEATMAP_IMPL_H
#define HEATMAP_IMPL_H

#include "heatmap.h"

/* heatmap_columns.c.  The column of second sec, growing the matrix either
 * way as needed: 0, -ENOMEM or -E2BIG. */
int heatmap_column_of(struct heatmap *hm, int64_t sec, size_t *col);
/* Whether second sec is outside the window set by heatmap_set_window. */
int heatmap_outside(const struct heatmap *hm, int64_t sec);

/* heatmap_stacks.c: its part of heatmap_init and heatmap_free. */
int heatmap_stacks_init(struct heatmap *hm);
void heatmap_stacks_free(struct heatmap *hm);

#endif /* HEATMAP_IMPL_H */
