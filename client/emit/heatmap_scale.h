/*
 * heatmap_scale.h - the heat map's colour scale: by percentile of the
 * cells, so that the shades spread over what the data holds.
 *
 * A linear scale from 1 to the maximum failed on busy hosts: at 99 Hz on
 * 2 CPUs a 20 ms cell holds 0 to about 5 samples, nearly every cell
 * was the maximum's colour, and there was nothing to read.  Here:
 *  - a few distinct counts (at most HEATMAP_SCALE_ORDINAL, what cells hold
 *    at the usual 99 Hz): one evenly spaced shade per count, so each count
 *    is its own band of the ramp;
 *  - more: a count gets the shade of its mid-rank among the non-zero cells
 *    (the share of cells below it plus half of those equal), so the shades
 *    spread over what the data holds however skewed it is.
 * Either way the smallest count is the lightest shade and the largest the
 * darkest, whatever the CPU count, frequency or slice width.
 */
#ifndef HEATMAP_SCALE_H
#define HEATMAP_SCALE_H

#include <stddef.h>
#include <stdint.h>
#include "profile/heatmap.h"

#define HEATMAP_SCALE_ORDINAL	8

struct heatmap_scale {
	uint64_t	*value;		/* distinct non-zero counts, ascending */
	uint8_t		*shade;		/* 0 .. nshades-1 for each */
	size_t		n;
	unsigned	nshades;
};

/* The scale of hm's covered cells; 0 or -ENOMEM. */
int heatmap_scale_make(struct heatmap_scale *s, const struct heatmap *hm, unsigned nshades);

/* The shade (0 .. nshades-1) of count >= 1; a count not in the data gets
 * the shade of the largest count below it (or the lightest). */
unsigned heatmap_scale_shade(const struct heatmap_scale *s, uint64_t count);

/* The smallest count whose shade is at least shade, 0 when none is. */
uint64_t heatmap_scale_value_at(const struct heatmap_scale *s, unsigned shade);

void heatmap_scale_free(struct heatmap_scale *s);

#endif /* HEATMAP_SCALE_H */
