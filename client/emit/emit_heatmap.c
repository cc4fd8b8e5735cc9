/*
 * emit_heatmap.c - write a heat map as one self-contained SVG.
 *
 * Cells are one palette PNG (one pixel per cell, scaled up without
 * smoothing), so the file grows with columns x rows and not with how varied
 * the counts are.  Exact counts (for hover) and the per-second stacks (for
 * the flame graph of a selected range) are XML text in <metadata>; the
 * script only reads them from the DOM, so no profile text is ever script
 * code.  Layout and formats: docs/design.md, "Heat maps".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "colour.h"
#include "emit.h"
#include "emit_heatmap.h"
#include "heatmap_png.h"
#include "heatmap_scale.h"
#include "common/util.h"

#define NS_URI		"urn:pcp-stackprof:heatmap"
#define LEFT		70.0	/* room for the offset axis */
#define RIGHT		40.0	/* half a time label past the last column */
#define TOP		76.0	/* title, subtitle, hint */
#define GRID_H		400.0	/* heat map height for 50 or more slices */
#define NSHADES		32	/* colour steps for counts >= 1 */
#define PAL_NODATA	0
#define PAL_ZERO	1

/* Positions of everything, computed once from the data and the options. */
struct layout {
	double	width;		/* whole SVG */
	double	x0, y0;		/* bottom-left of row 0 is (x0, y0 + grid_h) */
	double	cw, ch;		/* cell size */
	double	grid_w, grid_h;
	double	fx, fy, fw;	/* flame graph area */
	double	height;		/* initial; the script grows it */
};

static void
layout_for(const struct heatmap *hm, unsigned minwidth, struct layout *l)
{
	double	avail = minwidth - LEFT - RIGHT;

	l->cw = hm->ncols ? avail / hm->ncols : avail;
	if (l->cw > 24)
		l->cw = 24;
	if (l->cw < 2)		/* clickable; wide heat maps scroll */
		l->cw = 2;
	l->ch = GRID_H / hm->rows > 12 ? 12 : GRID_H / hm->rows;
	l->x0 = LEFT;
	l->y0 = TOP;
	l->grid_w = l->cw * hm->ncols;
	l->grid_h = l->ch * hm->rows;
	l->width = LEFT + l->grid_w + RIGHT;
	if (l->width < minwidth)
		l->width = minwidth;
	l->fx = 10;
	l->fw = minwidth - 20;
	l->fy = l->y0 + l->grid_h + 84;
	l->height = l->fy + 44;
}

/* ---- colours ---- */

static void
make_palette(uint8_t pal[NSHADES + 2][3])
{
	/* yellow -> orange -> red -> dark red (ColorBrewer YlOrRd) */
	static const uint8_t	stops[5][3] = {
		{ 255, 255, 204 }, { 254, 217, 118 }, { 253, 141, 60 },
		{ 227, 26, 28 }, { 128, 0, 38 },
	};
	unsigned		i, k;

	memcpy(pal[PAL_NODATA], (uint8_t[3]){ 0xe4, 0xe4, 0xe4 }, 3);
	memcpy(pal[PAL_ZERO], (uint8_t[3]){ 0xff, 0xff, 0xff }, 3);
	for (i = 0; i < NSHADES; i++) {
		double	pos = (double)i / (NSHADES - 1) * 4;
		unsigned s = pos >= 4 ? 3 : (unsigned)pos;
		double	f = pos - s;
		for (k = 0; k < 3; k++)
			pal[2 + i][k] = (uint8_t)(stops[s][k] + f * (stops[s + 1][k] - stops[s][k]) + 0.5);
	}
}

/* By percentile (heatmap_scale.h): the smallest count the lightest
 * shade, the maximum always the darkest. */
static uint8_t
shade(uint64_t count, const struct heatmap_scale *scale)
{
	if (count == 0)
		return PAL_ZERO;
	return (uint8_t)(2 + heatmap_scale_shade(scale, count));
}

static int
cells_image(const struct heatmap *hm, const struct heatmap_scale *scale, struct membuf *out)
{
	uint8_t		pal[NSHADES + 2][3];
	uint8_t		*px;
	size_t		c;
	unsigned	r;

	if ((px = malloc(hm->ncols * hm->rows)) == NULL)
		return -ENOMEM;
	make_palette(pal);
	for (c = 0; c < hm->ncols; c++)
		for (r = 0; r < hm->rows; r++)
			px[(size_t)(hm->rows - 1 - r) * hm->ncols + c] = heatmap_cell_covered(hm, c, r) ?
				shade(heatmap_cell(hm, c, r), scale) : PAL_NODATA;
	heatmap_png_base64(out, px, (unsigned)hm->ncols, hm->rows,
			   (const uint8_t (*)[3])pal, NSHADES + 2);
	free(px);
	return 0;
}

/* ---- embedded data ---- */

/* Per column "c0,c1,..." (row 0 first, "" = 0, "-" = no data, trailing
 * zeros dropped; a column with no data at all is "-"), columns joined by '/'. */
static void
counts_text(const struct heatmap *hm, struct membuf *out)
{
	size_t		c;
	unsigned	r, last;
	int		any;

	for (c = 0; c < hm->ncols; c++) {
		if (c)
			membuf_puts(out, "/");
		for (r = 0, last = 0, any = 0; r < hm->rows; r++) {
			if (heatmap_cell_covered(hm, c, r))
				any = 1;
			if (!heatmap_cell_covered(hm, c, r) || heatmap_cell(hm, c, r))
				last = r + 1;
		}
		if (!any) {
			membuf_puts(out, "-");
			continue;
		}
		for (r = 0; r < last; r++) {
			if (r)
				membuf_puts(out, ",");
			if (!heatmap_cell_covered(hm, c, r))
				membuf_puts(out, "-");
			else if (heatmap_cell(hm, c, r))
				membuf_printf(out, "%" PRIu64, heatmap_cell(hm, c, r));
		}
	}
}

/* Base 36 keeps the numbers short; the script reads them with parseInt(s, 36). */
static void
put_b36(struct membuf *out, uint64_t v)
{
	char	buf[16];
	int	i = sizeof(buf);

	do {
		buf[--i] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
		v /= 36;
	} while (v);
	membuf_append(out, buf + i, sizeof(buf) - i);
}

static void
put_colour(struct membuf *out, char type, const char *name)
{
	struct rgb	c = frame_colour(type, name);

	membuf_printf(out, "%02x%02x%02x", c.r, c.g, c.b);
}

/* The flame graph's colour of each frame (colour.c), "rrggbb" in frame
 * order, and of the "all" frame, so both graphs draw a function alike. */
static void
colours_text(const struct heatmap *hm, struct membuf *out)
{
	size_t	i;

	membuf_puts(out, "<sp:colours all=\"");
	put_colour(out, 'H', "all");
	membuf_puts(out, "\">");
	for (i = 0; i < heatmap_nframes(hm); i++) {
		if (i)
			membuf_puts(out, " ");
		put_colour(out, heatmap_frame_type(hm, i), heatmap_frame(hm, i));
	}
	membuf_puts(out, "</sp:colours>\n");
}

/*
 * Frames as <sp:f> elements (escaped text); the trie as one "d.f" per node
 * (d = node - parent, f = frame, base 36); per column the sorted stack
 * entries as "g" or "g*n" (g = node - previous node, n = samples when not
 * 1, base 36), columns joined by '/'.
 */
static void
stacks_text(const struct heatmap *hm, struct membuf *out)
{
	size_t		c, i;
	uint32_t	prev;

	membuf_puts(out, "<sp:frames>");
	for (i = 0; i < heatmap_nframes(hm); i++) {
		membuf_puts(out, "<sp:f>");
		xml_escape(out, heatmap_frame(hm, i));
		membuf_puts(out, "</sp:f>");
	}
	membuf_puts(out, "</sp:frames>\n");
	colours_text(hm, out);
	membuf_puts(out, "<sp:nodes>");
	for (i = 1; i < hm->nnodes; i++) {
		if (i > 1)
			membuf_puts(out, " ");
		put_b36(out, i - hm->nodes[i].parent);
		membuf_puts(out, ".");
		put_b36(out, hm->nodes[i].frame);
	}
	membuf_puts(out, "</sp:nodes>\n<sp:stacks>");
	for (c = 0; c < hm->ncols; c++) {
		if (c)
			membuf_puts(out, "/");
		for (i = 0, prev = 0; i < hm->stacks[c].n; i++) {
			const struct heatmap_entry *e = &hm->stacks[c].v[i];
			if (i)
				membuf_puts(out, ",");
			put_b36(out, e->node - prev);
			prev = e->node;
			if (e->count != 1) {
				membuf_puts(out, "*");
				put_b36(out, e->count);
			}
		}
	}
	membuf_puts(out, "</sp:stacks>\n");
}

static void
metadata(const struct heatmap *hm, const struct layout *l, uint64_t max, struct membuf *out)
{
	membuf_printf(out, "<metadata><sp:heatmap start=\"%" PRId64 "\" cols=\"%zu\" rows=\"%u\""
		      " slicems=\"%.6g\" max=\"%" PRIu64 "\" x0=\"%.2f\" y0=\"%.2f\" cw=\"%.4f\""
		      " ch=\"%.4f\" fx=\"%.2f\" fy=\"%.2f\" fw=\"%.2f\">\n<sp:counts>",
		      hm->first_sec, hm->ncols, hm->rows, 1000.0 / hm->rows, max,
		      l->x0, l->y0, l->cw, l->ch, l->fx, l->fy, l->fw);
	counts_text(hm, out);
	membuf_puts(out, "</sp:counts>\n");
	stacks_text(hm, out);
	membuf_puts(out, "</sp:heatmap></metadata>\n");
}

/* ---- visible parts ---- */

static void
time_axis(const struct heatmap *hm, const struct layout *l, struct membuf *out)
{
	static const int steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900,
				     1800, 3600, 7200, 21600, 43200, 86400 };
	double		yb = l->y0 + l->grid_h;
	size_t		c, i;
	int		step = 86400;
	char		hms[16];

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * l->cw >= 90) {
			step = steps[i];
			break;
		}
	membuf_puts(out, "<g class=\"axis\">\n");
	for (c = 0; c < hm->ncols; c++) {
		int64_t	s = hm->first_sec + (int64_t)c;
		double	x = l->x0 + c * l->cw;
		if (((s % step) + step) % step != 0)
			continue;
		utc_strftime((double)s, "%H:%M:%S", hms, sizeof(hms));
		membuf_printf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>"
			      "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n",
			      x, yb, x, yb + 5, x, yb + 17, hms);
	}
	for (i = 0; i <= 4; i++)
		membuf_printf(out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%zu</text>\n",
			      l->x0 - 6, yb - l->grid_h * i / 4 + 4, i * 250);
	membuf_printf(out, "<text x=\"14\" y=\"%.2f\" transform=\"rotate(-90 14 %.2f)\""
		      " text-anchor=\"middle\">offset in second (ms)</text>\n",
		      l->y0 + l->grid_h / 2, l->y0 + l->grid_h / 2);
	membuf_printf(out, "<text x=\"%.2f\" y=\"%.2f\">time (UTC), one column per second</text>\n",
		      l->x0, yb + 32);
	membuf_puts(out, "</g>\n");
}

/* The ramp, with the counts where its quarters begin: the scale is by
 * percentile, so the numbers say what each shade means. */
static void
legend(const struct layout *l, const struct heatmap_scale *scale, uint64_t max,
       struct membuf *out)
{
	uint8_t		pal[NSHADES + 2][3];
	double		x = l->x0 + 260, y = l->y0 + l->grid_h + 22;
	uint64_t	last = 0, v;
	int		i;

	make_palette(pal);
	membuf_printf(out, "<g id=\"legend\" class=\"axis\">\n"
		      "<rect x=\"%.2f\" y=\"%.2f\" width=\"12\" height=\"12\" fill=\"#e4e4e4\" stroke=\"#999\"/>"
		      "<text x=\"%.2f\" y=\"%.2f\">no data</text>\n"
		      "<rect x=\"%.2f\" y=\"%.2f\" width=\"12\" height=\"12\" fill=\"#ffffff\" stroke=\"#999\"/>"
		      "<text x=\"%.2f\" y=\"%.2f\">0</text>\n",
		      x, y, x + 16, y + 10, x + 70, y, x + 86, y + 10);
	for (i = 0; i < NSHADES; i++)
		membuf_printf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"6\" height=\"12\" fill=\"#%02x%02x%02x\"/>",
			      x + 126 + 6 * i, y, pal[2 + i][0], pal[2 + i][1], pal[2 + i][2]);
	membuf_puts(out, "\n");
	for (i = 0; i <= 4; i++) {
		unsigned at = i * (NSHADES - 1) / 4;

		v = heatmap_scale_value_at(scale, at);
		if (v == 0 || v == last)
			continue;
		last = v;
		membuf_printf(out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%" PRIu64
			      "</text>", x + 126 + 6 * at + 3, y + 24, v);
	}
	membuf_printf(out, "\n<text x=\"%.2f\" y=\"%.2f\">%" PRIu64 " samples per cell (max);"
		      " shades by rank (a band per count when few)</text>\n</g>\n",
		      x + 130 + 6 * NSHADES, y + 10, max);
}

static void
header(const struct layout *l, struct membuf *out)
{
	membuf_printf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\""
		" xmlns:xlink=\"http://www.w3.org/1999/xlink\" xmlns:sp=\"" NS_URI "\""
		" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
		"<style type=\"text/css\">\n"
		"text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
		".title { font-size: 17px; text-anchor: middle; }\n"
		".note { font-size: 16px; fill: #a00; }\n"
		".axis line { stroke: #666; }\n"
		".sel { fill: #0050ff; fill-opacity: 0.18; stroke: #0030c0; stroke-width: 1; pointer-events: none; }\n"
		".frame text { font-size: 11px; pointer-events: none; }\n"
		".frame:hover rect { stroke: #000; stroke-width: 0.5; }\n"
		"#tip rect { fill: #ffffe8; stroke: #888; }\n"
		"</style>\n<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
		l->width, l->height, l->width, l->height, heatmap_script);
}

static void
titles(const struct heatmap *hm, const struct heatmap_emit_options *o,
       const struct layout *l, struct membuf *out)
{
	membuf_printf(out, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
		      "<text class=\"title\" x=\"%.2f\" y=\"24\">", l->fw / 2 + l->fx);
	xml_escape(out, o && o->title ? o->title : "CPU heat map");
	membuf_puts(out, "</text>\n");
	if (o && o->subtitle) {
		membuf_printf(out, "<text class=\"title\" x=\"%.2f\" y=\"44\" style=\"font-size:12px\">",
			      l->fw / 2 + l->fx);
		xml_escape(out, o->subtitle);
		membuf_puts(out, "</text>\n");
	}
	membuf_printf(out, "<text x=\"%.2f\" y=\"64\">Click a start cell, then an end cell, to see the"
		      " flame graph of that range.", l->x0);
	if (hm->resets)
		membuf_printf(out, " Counters restarted %zu time(s): those intervals show no data.",
			      hm->resets);
	if (hm->long_deltas)
		membuf_printf(out, " %zu fetch interval(s) longer than 1 s: each summed into one column.",
			      hm->long_deltas);
	membuf_puts(out, "</text>\n");
}

static int
grid(const struct heatmap *hm, const struct layout *l, const struct heatmap_scale *scale,
     struct membuf *out)
{
	int	sts;

	if (hm->ncols == 0)
		return 0;
	membuf_printf(out, "<g id=\"cells\" style=\"cursor:crosshair\">\n"
		      "<image x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\""
		      " preserveAspectRatio=\"none\" image-rendering=\"optimizeSpeed\""
		      " style=\"image-rendering:pixelated\" xlink:href=\"data:image/png;base64,",
		      l->x0, l->y0, l->grid_w, l->grid_h);
	if ((sts = cells_image(hm, scale, out)) < 0)
		return sts;
	membuf_printf(out, "\"/>\n<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\""
		      " fill=\"none\" stroke=\"#999\"/>\n</g>\n",
		      l->x0, l->y0, l->grid_w, l->grid_h);
	time_axis(hm, l, out);
	return 0;
}

int
emit_heatmap(const struct heatmap *hm, const struct heatmap_emit_options *o, struct membuf *out)
{
	struct layout		l;
	struct heatmap_scale	scale;
	uint64_t		max = heatmap_max_cell(hm);
	int			empty = max == 0 && heatmap_stack_total(hm) == 0;
	int			sts;

	layout_for(hm, o && o->width >= 400 ? o->width : 1200, &l);
	header(&l, out);
	metadata(hm, &l, max, out);
	titles(hm, o, &l, out);
	if (heatmap_scale_make(&scale, hm, NSHADES) < 0)
		return -ENOMEM;
	if ((sts = grid(hm, &l, &scale, out)) < 0) {
		heatmap_scale_free(&scale);
		return sts;
	}
	legend(&l, &scale, max, out);
	heatmap_scale_free(&scale);
	if (empty)
		membuf_printf(out, "<text id=\"note\" class=\"note\" x=\"%.2f\" y=\"%.2f\">"
			      HEATMAP_EMPTY_NOTE "</text>\n",
			      l.x0 + 20, l.y0 + (l.grid_h > 0 ? l.grid_h / 2 : 20));
	membuf_printf(out, "<g id=\"sel\"></g>\n"
		      "<text id=\"info\" x=\"%.2f\" y=\"%.2f\"> </text>\n"
		      "<text id=\"flametitle\" x=\"%.2f\" y=\"%.2f\"> </text>\n<g id=\"flame\"></g>\n"
		      "<g id=\"tip\" visibility=\"hidden\" pointer-events=\"none\">"
		      "<rect x=\"0\" y=\"-14\" width=\"10\" height=\"19\"/>"
		      "<text id=\"tiptext\" x=\"4\" y=\"0\"> </text></g>\n</svg>\n",
		      l.x0, l.y0 + l.grid_h + 62, l.fx, l.fy + 14);
	return out->failed ? -ENOMEM : 0;
}
