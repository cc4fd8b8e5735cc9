/*
 * emit_heatmap.h - a FlameScope-style heat map as one self-contained SVG:
 * columns are seconds, rows are slices of the second (0 at the bottom), a
 * colour legend, hover for time/offset/count, and click-start/click-end
 * range selection that draws the flame graph of the selected seconds from
 * stack data embedded as (non-script) XML in the file.
 */
#ifndef EMIT_HEATMAP_H
#define EMIT_HEATMAP_H

#include "profile/heatmap.h"
#include "common/membuf.h"

struct heatmap_emit_options {
	const char	*title;		/* default "CPU heat map" */
	const char	*subtitle;	/* e.g. host and range; may be NULL */
	unsigned	width;		/* minimum SVG width in pixels, default 1200 */
};

/* The note an SVG carries when there is nothing to show. */
#define HEATMAP_EMPTY_NOTE	"No samples in this time range"

/* hm must have been heatmap_finish()ed.  Deterministic; 0 or -ENOMEM. */
int emit_heatmap(const struct heatmap *hm, const struct heatmap_emit_options *o,
		 struct membuf *out);

/* The script embedded in every heat map (heatmap_script.c). */
extern const char heatmap_script[];

#endif /* EMIT_HEATMAP_H */
