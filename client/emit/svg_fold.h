/*
 * svg_fold.h - which level of the flame graph SVG each frame is drawn at,
 * so that one tower far deeper than the rest (a deep recursion) does not
 * push the whole graph's base off the first screen.
 *
 * Every subtree rooted at depth SVG_FOLD_AT that would reach past
 * SVG_FOLD_LEVELS levels keeps its top frames and loses a band above its
 * root: one "N frames folded" frame is drawn there instead, as wide as
 * the root.  Frames keep their x positions, so the graph's widths are
 * unchanged; only the band's own frames are not drawn.
 */
#ifndef SVG_FOLD_H
#define SVG_FOLD_H

#include <stdbool.h>
#include <stdint.h>
#include "profile/tree.h"

#define SVG_FOLD_LEVELS	50	/* 800 px of frames: with the title, legend and
				 * details, under 1,000 px */
#define SVG_FOLD_AT	32	/* tree depth whose subtrees may fold */

struct svg_fold {
	uint32_t	*hidden;	/* per fold root in pre-order: depths hidden
					 * above it (0: not folded) */
	size_t		nroots;
	size_t		at;		/* the walk: current fold root + 1 */
	uint32_t	levels;		/* levels drawn, folds included */
	uint32_t	shift;		/* the walk's current subtree's hidden count */
	unsigned	base;		/* levels under depth 0 ("all" frame) */
};

/* Plan the folds of t; off: fold nothing.  Returns 0 or -ENOMEM. */
int svg_fold_plan(struct svg_fold *f, const struct flame_tree *t, unsigned base, bool off);

/*
 * During a pre-order walk, node x's level, or -1 when it is inside a
 * folded band.  *fold is set to the number of frames folded when x is a
 * fold root (a marker goes at level + 1), else 0.
 */
int svg_fold_level(struct svg_fold *f, const struct flame_node *x, uint32_t *fold);

void svg_fold_free(struct svg_fold *f);

#endif /* SVG_FOLD_H */
