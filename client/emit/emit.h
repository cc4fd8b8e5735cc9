/*
 * emit.h - emitters turn a finished flame_tree into bytes in a membuf.
 * Each is deterministic: the same tree gives the same bytes.
 */
#ifndef EMIT_H
#define EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include "common/membuf.h"
#include "common/text.h"
#include "profile/tree.h"

struct emit_options {
	const char	*title;		/* default "Flame Graph" */
	const char	*subtitle;	/* e.g. host and time range; may be NULL */
	unsigned	width;		/* SVG width in pixels, default 1200 */
	double		minwidth;	/* omit frames narrower than this (pixels), default 0.1 */
	bool		inverted;	/* icicle graph: root at the top */
	bool		full_height;	/* draw every level: fold no tower (svg_fold.h) */
	bool		negate;		/* differential: widths from the baseline, so
					 * frames only it has show (flamegraph.pl's
					 * --negate view of difffolded.pl's output) */
	const char	*count_name;	/* default "samples" */
	const char	*event;		/* --event, what values measure: default "on-cpu" */
	const char	*description;	/* what the profile misses (gaps); NULL: nothing */
};

void emit_options_default(struct emit_options *o);

/*
 * The emitters append to out.  Each returns 0, or -ENOMEM when out could
 * not grow (out->failed is set).  An empty tree is not an error: JSON has
 * empty arrays, the SVG says "No samples", folded is empty.
 */

/* DeepFlow ProfileTracing JSON envelope, one line; values in microseconds
 * (on-cpu, off-cpu) or counts (other events), said by "value_unit" after
 * "profile_event_type" (event; NULL: on-cpu). */
int emit_json(const struct flame_tree *t, const char *event, struct membuf *out);
/* The same with DESCRIPTION set to description (NULL: ""): what the
 * profile misses, e.g. a gap while pmcd restarted. */
int emit_json_described(const struct flame_tree *t, const char *event,
			const char *description, struct membuf *out);
/* Self-contained interactive SVG flame graph; o may be NULL (defaults).
 * A differential tree is drawn with the current profile's widths (the
 * baseline's with o->negate) and coloured by each frame's change: red
 * grown, blue shrunk, white unchanged, intensity scaled to the largest
 * change; each frame's title gives both values and the delta. */
int emit_svg(const struct flame_tree *t, const struct emit_options *o, struct membuf *out);
/* Folded stacks "root;frame;frame count", one line per node with self
 * samples, sorted bytewise. */
int emit_folded(const struct flame_tree *t, struct membuf *out);

#endif /* EMIT_H */
