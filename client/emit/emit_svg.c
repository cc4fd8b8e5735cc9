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
 * flamegraph.pl; with one root, the root is the bottom frame.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "colour.h"
#include "svg_script.h"

#define FRAME_HEIGHT	16
#define FONT_SIZE	12
#define FONT_WIDTH	0.59		/* average glyph width / font size */
#define XPAD		10
#define MIN_DRAWN	0.05		/* below this the script cannot tell frames apart */

struct svg_layout {
	const struct emit_options *opt;
	uint64_t	total;		/* samples under all roots */
	double		scale;		/* pixels per sample */
	double		minwidth;
	unsigned	width, height;
	unsigned	top, bottom;	/* padding for title and for details */
	unsigned	all_frame;	/* 1 if an "all" frame is drawn under the roots */
};

static void
compute_layout(const struct flame_tree *t, const struct emit_options *o,
	       struct svg_layout *l)
{
	size_t		i, n = flame_tree_nnodes(t), roots = 0;
	unsigned	levels;

	memset(l, 0, sizeof(*l));
	l->opt = o;
	for (i = 0; i < n; i++) {
		const struct flame_node *x = flame_tree_node(t, i);
		if (x->parent < 0) {
			l->total += x->total_samples;
			roots++;
		}
	}
	l->all_frame = roots > 1;
	l->width = o->width >= 2 * XPAD + 100 ? o->width : 2 * XPAD + 100;
	l->scale = l->total ? (double)(l->width - 2 * XPAD) / (double)l->total : 0;
	l->minwidth = o->minwidth > MIN_DRAWN ? o->minwidth : MIN_DRAWN;
	l->top = FONT_SIZE * 3 + (o->subtitle && *o->subtitle ? FONT_SIZE * 2 : 0);
	l->bottom = FONT_SIZE * 2 + 10;
	levels = l->total ? flame_tree_max_depth(t) + 1 + l->all_frame : 1;
	l->height = l->top + l->bottom + levels * FRAME_HEIGHT;
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

/* y of the top edge of a frame at level (0 = bottom or, inverted, top). */
static unsigned
frame_y(const struct svg_layout *l, unsigned level)
{
	if (l->opt->inverted)
		return l->top + level * FRAME_HEIGHT;
	return l->height - l->bottom - (level + 1) * FRAME_HEIGHT;
}

/* One frame; label cut to what fits, as the script does when zooming. */
static void
svg_frame(struct membuf *out, const struct svg_layout *l, const char *name, char type,
	  uint64_t start, uint64_t samples, unsigned level)
{
	double		x = XPAD + (double)start * l->scale;
	double		w = (double)samples * l->scale;
	unsigned	y = frame_y(l, level);
	size_t		chars = (size_t)floor(w / (FONT_SIZE * FONT_WIDTH));
	size_t		len = xml_text_length(name);
	struct rgb	c = frame_colour(type, name);

	membuf_puts(out, "<g><title>");
	xml_escape(out, name);
	membuf_printf(out, " (%" PRIu64 " ", samples);
	xml_escape(out, l->opt->count_name ? l->opt->count_name : "samples");
	membuf_printf(out, ", %.2f%%)</title>"
		"<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" "
		"fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		100.0 * (double)samples / (double)l->total,
		x, y, w, FRAME_HEIGHT - 1, c.r, c.g, c.b, x + 3, y + FRAME_HEIGHT / 2.0 + 3.5);
	if (chars >= 3 && len <= chars)
		xml_escape(out, name);
	else if (chars >= 3) {
		xml_escape_prefix(out, name, chars - 2);
		membuf_puts(out, "..");
	}
	membuf_puts(out, "</text></g>\n");
}

/*
 * Frames in pre-order.  A node starts where its parent's next free sample
 * offset is (next[]); frames narrower than minwidth are left out, and so,
 * being narrower still, are their callees.
 */
static int
svg_frames(struct membuf *out, const struct flame_tree *t, const struct svg_layout *l)
{
	size_t		i, n = flame_tree_nnodes(t);
	uint64_t	*next = malloc((n + 1) * sizeof(*next));
	uint64_t	next_root = 0, start;

	if (next == NULL)
		return -ENOMEM;
	membuf_puts(out, "<g id=\"frames\">\n");
	if (l->all_frame)
		svg_frame(out, l, "all", 'H', 0, l->total, 0);
	for (i = 0; i < n && !out->failed; i++) {
		const struct flame_node *x = flame_tree_node(t, i);
		const struct flame_function *f = flame_tree_function(t, x->function);
		uint64_t *from = x->parent < 0 ? &next_root : &next[x->parent];

		start = *from;
		*from += x->total_samples;
		next[i] = start;
		if ((double)x->total_samples * l->scale >= l->minwidth)
			svg_frame(out, l, f->name, f->type, start, x->total_samples,
				  x->depth + l->all_frame);
	}
	membuf_puts(out, "</g>\n");
	free(next);
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
	compute_layout(t, o, &l);
	svg_header(out, &l);
	if (l.total == 0)
		membuf_printf(out, "<g id=\"frames\"></g>\n<text x=\"%.2f\" y=\"%u\" "
			      "text-anchor=\"middle\">No samples</text>\n",
			      l.width / 2.0, frame_y(&l, 0) + FRAME_HEIGHT - 4);
	else
		sts = svg_frames(out, t, &l);
	membuf_puts(out, "<script type=\"text/ecmascript\"><![CDATA[\n");
	membuf_puts(out, svg_script);
	membuf_puts(out, "]]></script>\n</svg>\n");
	if (sts == 0 && out->failed)
		sts = -ENOMEM;
	return sts;
}
