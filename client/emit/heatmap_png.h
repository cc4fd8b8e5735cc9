/*
 * heatmap_png.h - a palette PNG of the heat map's cells, base64 encoded for
 * an SVG <image> data: URI.  One pixel per cell keeps the file's size bounded
 * by columns x rows whatever the data, where one SVG element per cell would
 * not be (see docs/design.md, "Heat maps").
 */
#ifndef HEATMAP_PNG_H
#define HEATMAP_PNG_H

#include <stdint.h>
#include "common/membuf.h"

/*
 * Append to out the base64 text of a PNG of w x h pixels, 8 bits per pixel,
 * each an index into palette (npal RGB triples, 1..256).  pixels is row
 * major, top row first.  The image data is stored, not compressed: that
 * needs no library and costs only ~1.33 bytes per cell after base64.
 */
void heatmap_png_base64(struct membuf *out, const uint8_t *pixels, unsigned w, unsigned h,
			const uint8_t (*palette)[3], unsigned npal);

#endif /* HEATMAP_PNG_H */
