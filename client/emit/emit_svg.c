/*
 * emit_svg.c - an interactive flame graph in the shape users know from
 * flamegraph.pl: one <g><title>name (N samples, P%)</title><rect/><text/></g>
 * per frame, title and subtitle, click to zoom, reset, regex search with
 * the matched share, state in the URL (the script is in svg_script.c).
 *
 * What we do differently from flamegraph.pl:
 *  - every string we write (title, subtitle, names, count name) goes
 *    through xml_escape(), which also replaces control characters and
 *    invalid UTF-8, so the file is always well-formed XML;
 *  - no profile text is ever inside the script: the script reads it from
 *    the frames' elements;
 *  - frame order is the tree's (siblings sorted by name), colours are a
 *    hash of the name, numbers have fixed formats: the same tree gives the
 *    same bytes.
 * With several roots (processes) an "all" frame spans them, as in
 * flamegraph.pl; with one root, the root is the bottom frame.  A tower far
 * deeper than the rest is folded (svg_fold.c), so the base and the top
 * frames are on the first screen; a legend under the title says what the
 * colours and the [k]/[l]/[t]/[p] prefixes mean.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "emit_export.h"
#include "colour.h"
#include "svg_fold.h"
#include "svg_script.h"

#define FRAME_HEIGHT	16
#define FONT_SIZE	12
#define FONT_WIDTH	0.59		/* average glyph width / font size */
#define XPAD		10
#define MIN_DRAWN	0.05		/* below this the script cannot tell frames apart */
#define LEGEND_HEIGHT	18

struct svg_layout {
	const struct emit_options *opt;
	uint64_t	total;		/* samples under all roots: the width */
	uint64_t	now_total;	/* the current profile's (not the baseline's) */
	double		scale;		/* pixels per sample */
	double		minwidth;
	unsigned	width, height;
	unsigned	top, bottom;	/* padding for title and legend, for details */
	unsigned	legend_y;	/* baseline of the legend's text */
	unsigned	all_frame;	/* 1 if an "all" frame is drawn under the roots */
	bool		diff;		/* a differential tree: coloured by change */
	uint64_t	max_change;	/* the largest |current - baseline| of a frame */
	struct svg_fold	fold;
};

/* What one frame shows: its widths' value and, in a differential graph,
 * both sides' (current, baseline). */
struct svg_value {
	uint64_t	width;		/* samples the frame is wide */
	uint64_t	now, base;
};

static int
compute_layout(const struct flame_tree *t, const struct emit_options *o,
	       struct svg_layout *l)
{
	unsigned	levels;

	memset(l, 0, sizeof(*l));
	l->opt = o;
	l->diff = flame_tree_has_baseline(t);
	l->now_total = flame_tree_total_samples(t);
	l->total = l->diff && o->negate ? flame_tree_base_total_samples(t) :
		   flame_tree_total_samples(t);
	l->all_frame = flame_tree_nroots(t) > 1;
	l->width = o->width >= 2 * XPAD + 100 ? o->width : 2 * XPAD + 100;
	l->scale = l->total ? (double)(l->width - 2 * XPAD) / (double)l->total : 0;
	l->minwidth = o->minwidth > MIN_DRAWN ? o->minwidth : MIN_DRAWN;
	l->top = FONT_SIZE * 3 + (o->subtitle && *o->subtitle ? FONT_SIZE * 2 : 0);
	l->legend_y = l->top + 4;
	l->top += LEGEND_HEIGHT;
	l->bottom = FONT_SIZE * 2 + 10;
	if (l->total && svg_fold_plan(&l->fold, t, l->all_frame, o->full_height) < 0)
		return -ENOMEM;
	levels = l->total ? l->fold.levels : 1;
	l->height = l->top + l->bottom + levels * FRAME_HEIGHT;
	return 0;
}

static void
svg_header(struct membuf *out, const struct svg_layout *l)
{
	const struct emit_options *o = l->opt;
	unsigned	w = l->width, h = l->height;

	membuf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\" data-xpad=\"%d\" data-fontsize=\"%d\" "
		"data-fontwidth=\"%.2f\" data-inverted=\"%d\">\n",
		w, h, w, h, XPAD, FONT_SIZE, FONT_WIDTH, o->inverted ? 1 : 0);
	membuf_puts(out, "<!-- Flame graph by pmflame. Click a frame to zoom, "
		"Search (or Ctrl-F) to highlight frames matching a regular expression. -->\n"
		"<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
		"<stop offset=\"5%\" stop-color=\"#eeeeee\"/>"
		"<stop offset=\"95%\" stop-color=\"#eeeeb0\"/></linearGradient></defs>\n"
		"<style type=\"text/css\"><![CDATA[\n");
	membuf_puts(out, svg_style);
	membuf_printf(out, "]]></style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#background)\"/>\n"
		"<text id=\"title\" x=\"%.2f\" y=\"%d\">", w, h, w / 2.0, FONT_SIZE * 2);
	xml_escape(out, o->title ? o->title : "Flame Graph");
	membuf_puts(out, "</text>\n");
	if (o->subtitle && *o->subtitle) {
		membuf_printf(out, "<text id=\"subtitle\" x=\"%.2f\" y=\"%d\">",
			      w / 2.0, FONT_SIZE * 4);
		xml_escape(out, o->subtitle);
		membuf_puts(out, "</text>\n");
	}
	membuf_printf(out, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%u\" y=\"%d\">Search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n",
		XPAD, FONT_SIZE * 2, w - XPAD - 100, FONT_SIZE * 2,
		XPAD, h - 17, w - XPAD - 100, h - 17);
}

/* One legend entry: a swatch and its words; returns the next x. */
static double
legend_entry(struct membuf *out, double x, unsigned y, struct rgb c, const char *words)
{
	membuf_printf(out, "<rect x=\"%.2f\" y=\"%u\" width=\"10\" height=\"10\" "
		      "fill=\"rgb(%u,%u,%u)\" stroke=\"rgb(120,120,120)\" stroke-width=\"0.5\"/>"
		      "<text x=\"%.2f\" y=\"%u\">%s</text>\n",
		      x, y - 9, c.r, c.g, c.b, x + 14, y, words);
	return x + 14 + (double)strlen(words) * FONT_SIZE * FONT_WIDTH + 14;
}

/*
 * What the colours and the name prefixes mean, on the first screen.  The
 * swatches are each type's colour for a fixed name, so they are the
 * graph's own hues.
 */
static void
svg_legend(struct membuf *out, const struct svg_layout *l)
{
	static const struct { char type; const char *words; } types[] = {
		{ 'A', "application" }, { 'L', "[l] library" }, { 'K', "[k] kernel" },
		{ 'T', "[t] thread" }, { 'P', "[p] process" }, { '?', "[/module], [unknown]: no symbol" },
	};
	char		palette = event_measure(l->opt->event)->palette;
	double		x = XPAD;
	unsigned	y = l->legend_y + 10;
	size_t		i;

	membuf_puts(out, "<g id=\"legend\" class=\"legend\">\n");
	if (l->diff) {
		x = legend_entry(out, x, y, (struct rgb){ 255, 110, 110 }, "grew");
		x = legend_entry(out, x, y, (struct rgb){ 110, 110, 255 }, "shrank");
		x = legend_entry(out, x, y, (struct rgb){ 255, 255, 255 }, "unchanged");
	} else if (palette) {
		x = legend_entry(out, x, y, frame_colour_in(palette, 'A', "legend"),
				 palette == 'B' ? "off-CPU (blues)" :
				 palette == 'A' ? "off-wake: blocked -- waker (aqua)" : "memory (greens)");
	} else {
		for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			x = legend_entry(out, x, y, frame_colour(types[i].type, "legend"),
					 types[i].words);
	}
	membuf_printf(out, "<text x=\"%.2f\" y=\"%u\">width: ", x, y);
	xml_escape(out, l->opt->count_name ? l->opt->count_name : "samples");
	membuf_printf(out, "; hover a frame for its full name; click to zoom%s</text>\n</g>\n",
		      l->fold.hidden ? "; \xe2\x80\xa6 marks folded frames" : "");
}

/* y of the top edge of a frame at level (0 = bottom or, inverted, top). */
static unsigned
frame_y(const struct svg_layout *l, unsigned level)
{
	if (l->opt->inverted)
		return l->top + level * FRAME_HEIGHT;
	return l->height - l->bottom - (level + 1) * FRAME_HEIGHT;
}

static uint64_t
change(const struct svg_value *v)
{
	return v->now > v->base ? v->now - v->base : v->base - v->now;
}

/* flamegraph.pl's differential colours: red grown, blue shrunk, paler
 * as the change is smaller against the largest; white unchanged. */
static struct rgb
change_colour(const struct svg_layout *l, const struct svg_value *v)
{
	unsigned	pale = l->max_change ? (unsigned)(210 - 210 * (double)change(v) /
					   (double)l->max_change) : 210;
	struct rgb	c = { 255, 255, 255 };

	if (v->now > v->base)
		c.g = c.b = pale;
	else if (v->now < v->base)
		c.r = c.g = pale;
	return c;
}

/* The title's numbers: "N samples, P%", and in a differential graph
 * "; baseline M, +D (+Q%)" (Q of the baseline's value). */
static void
frame_numbers(struct membuf *out, const struct svg_layout *l, const struct svg_value *v)
{
	uint64_t	shown = l->diff ? v->now : v->width;
	uint64_t	all = l->diff ? l->now_total : l->total;

	membuf_printf(out, " (%" PRIu64 " ", shown);
	xml_escape(out, l->opt->count_name ? l->opt->count_name : "samples");
	membuf_printf(out, ", %.2f%%", all ? 100.0 * (double)shown / (double)all : 0.0);
	if (l->diff) {
		membuf_printf(out, "; baseline %" PRIu64 ", %c%" PRIu64, v->base,
			      v->now >= v->base ? '+' : '-', change(v));
		if (v->base > 0)
			membuf_printf(out, " (%c%.2f%%)", v->now >= v->base ? '+' : '-',
				      100.0 * (double)change(v) / (double)v->base);
	}
	membuf_puts(out, ")");
}

/* A "[k] " type prefix: a cut label drops it (the colour and the title
 * still say it), so a narrow frame shows its function and not "[k] ..". */
static size_t
type_prefix(const char *name)
{
	return name[0] == '[' && name[1] && name[1] != ']' && name[2] == ']' && name[3] == ' ' ?
	       4 : 0;
}

/* One frame; label cut to what fits, as the script does when zooming.
 * The title always holds the whole name. */
static void
svg_frame(struct membuf *out, const struct svg_layout *l, const char *name, char type,
	  uint64_t start, const struct svg_value *v, unsigned level)
{
	double		x = XPAD + (double)start * l->scale;
	double		w = (double)v->width * l->scale;
	unsigned	y = frame_y(l, level);
	size_t		chars = (size_t)floor(w / (FONT_SIZE * FONT_WIDTH));
	size_t		len = xml_text_length(name);
	struct rgb	c = l->diff ? change_colour(l, v) :
			    frame_colour_in(event_measure(l->opt->event)->palette, type, name);

	membuf_puts(out, "<g><title>");
	xml_escape(out, name);
	frame_numbers(out, l, v);
	membuf_printf(out, "</title>"
		"<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" "
		"fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, FRAME_HEIGHT - 1, c.r, c.g, c.b, x + 3, y + FRAME_HEIGHT / 2.0 + 3.5);
	if (chars >= 3 && len <= chars)
		xml_escape(out, name);
	else if (chars >= 3) {
		xml_escape_prefix(out, name + type_prefix(name), chars - 2);
		membuf_puts(out, "..");
	}
	membuf_puts(out, "</text></g>\n");
}

/* The frame that stands for a folded band: grey, as wide as its root. */
static void
svg_fold_marker(struct membuf *out, const struct svg_layout *l, uint32_t folded,
		uint64_t start, const struct svg_value *v, unsigned level)
{
	char	name[96];

	snprintf(name, sizeof(name), "\xe2\x80\xa6 %" PRIu32 " frames folded "
		 "(pmflame --full-height draws them)", folded);
	svg_frame(out, l, name, 'H', start, v, level);
}

static struct svg_value
node_value(const struct svg_layout *l, const struct flame_node *x)
{
	struct svg_value	v = { x->total_samples, x->total_samples, x->base_total_samples };

	if (l->diff && l->opt->negate)
		v.width = x->base_total_samples;
	return v;
}

/* The largest change of a frame, which the colours are scaled to. */
static int
max_change(const struct flame_tree *t, struct svg_layout *l)
{
	struct flame_walk	*w = flame_walk_new(t);
	const struct flame_node	*x;

	if (w == NULL)
		return -ENOMEM;
	while ((x = flame_walk_next(w)) != NULL) {
		struct svg_value v = node_value(l, x);

		if (change(&v) > l->max_change)
			l->max_change = change(&v);
	}
	flame_walk_free(w);
	return 0;
}

/*
 * Frames in pre-order.  A node starts where the next free sample offset
 * at its depth is (at[]): its parent's start for a first child, its
 * previous sibling's end otherwise.  Frames narrower than minwidth are
 * left out, and so, being narrower still, are their callees.
 */
static int
svg_frames(struct membuf *out, const struct flame_tree *t, struct svg_layout *l)
{
	uint64_t		*at = calloc((size_t)flame_tree_max_depth(t) + 2, sizeof(*at));
	struct flame_walk	*w = flame_walk_new(t);
	const struct flame_node	*x;

	if (at == NULL || w == NULL) {
		free(at);
		flame_walk_free(w);
		return -ENOMEM;
	}
	membuf_puts(out, "<g id=\"frames\">\n");
	if (l->all_frame) {
		struct svg_value all = { l->total, flame_tree_total_samples(t),
					 flame_tree_base_total_samples(t) };

		svg_frame(out, l, "all", 'H', 0, &all, 0);
	}
	while ((x = flame_walk_next(w)) != NULL && !out->failed) {
		struct svg_value	v = node_value(l, x);
		uint64_t		start = at[x->depth];
		uint32_t		folded;
		int			level = svg_fold_level(&l->fold, x, &folded);

		at[x->depth] += v.width;
		at[x->depth + 1] = start;
		if (level >= 0 && (double)v.width * l->scale >= l->minwidth) {
			const struct flame_function *f = flame_tree_function(t, x->function);

			svg_frame(out, l, f->name, f->type, start, &v, (unsigned)level);
			if (folded)
				svg_fold_marker(out, l, folded, start, &v, (unsigned)level + 1);
		}
	}
	membuf_puts(out, "</g>\n");
	flame_walk_free(w);
	free(at);
	return 0;
}

int
emit_svg(const struct flame_tree *t, const struct emit_options *o, struct membuf *out)
{
	struct emit_options	defaults;
	struct svg_layout	l;
	int			sts = 0;

	if (o == NULL) {
		emit_options_default(&defaults);
		o = &defaults;
	}
	if (compute_layout(t, o, &l) < 0 || (l.diff && max_change(t, &l) < 0)) {
		svg_fold_free(&l.fold);
		return -ENOMEM;
	}
	svg_header(out, &l);
	svg_legend(out, &l);
	if (l.total == 0)
		membuf_printf(out, "<g id=\"frames\"></g>\n<text x=\"%.2f\" y=\"%u\" "
			      "text-anchor=\"middle\">No samples</text>\n",
			      l.width / 2.0, frame_y(&l, 0) + FRAME_HEIGHT - 4);
	else
		sts = svg_frames(out, t, &l);
	membuf_puts(out, "<script type=\"text/ecmascript\"><![CDATA[\n");
	membuf_puts(out, svg_script);
	membuf_puts(out, "]]></script>\n</svg>\n");
	svg_fold_free(&l.fold);
	if (sts == 0 && out->failed)
		sts = -ENOMEM;
	return sts;
}
