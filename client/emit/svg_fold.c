/*
 * svg_fold.c - fold the over-tall towers of a flame graph (svg_fold.h).
 *
 * The first walk finds, per node at depth SVG_FOLD_AT, the deepest depth
 * under it; a subtree that would draw past SVG_FOLD_LEVELS hides just
 * enough depths above its root that its top lands on the last level.
 * Folding one depth would only swap a frame for a marker, so at least two
 * are folded.
 */
#include <errno.h>
#include <stdlib.h>
#include "svg_fold.h"
#include "lib/array.h"

static int
subtree_depths(struct svg_fold *f, const struct flame_tree *t, uint32_t **deepest)
{
	struct flame_walk	*w = flame_walk_new(t);
	const struct flame_node	*x;
	size_t			cap = 0;

	if (w == NULL)
		return -ENOMEM;
	while ((x = flame_walk_next(w)) != NULL) {
		if (x->depth == SVG_FOLD_AT) {
			if (array_reserve(deepest, &cap, (size_t)f->nroots + 1) < 0) {
				flame_walk_free(w);
				return -ENOMEM;
			}
			(*deepest)[f->nroots++] = x->depth;
		} else if (x->depth > SVG_FOLD_AT && (*deepest)[f->nroots - 1] < x->depth)
			(*deepest)[f->nroots - 1] = x->depth;
	}
	flame_walk_free(w);
	return 0;
}

int
svg_fold_plan(struct svg_fold *f, const struct flame_tree *t, unsigned base, bool off)
{
	uint32_t	top = flame_tree_max_depth(t) + base;	/* the highest level */
	size_t		i;

	*f = (struct svg_fold){ .base = base, .levels = top + 1 };
	if (off || top + 1 <= SVG_FOLD_LEVELS)
		return 0;
	if (subtree_depths(f, t, &f->hidden) < 0) {
		free(f->hidden);
		f->hidden = NULL;
		return -ENOMEM;
	}
	f->levels = SVG_FOLD_AT + base + 1;
	for (i = 0; i < f->nroots; i++) {
		uint32_t	level = f->hidden[i] + base;	/* its top, unfolded */
		uint32_t	hide = 0;

		if (level + 1 > SVG_FOLD_LEVELS) {
			/* top - hide + 1 (the marker) = SVG_FOLD_LEVELS - 1 */
			hide = level + 2 - SVG_FOLD_LEVELS;
			if (hide < 2)
				hide = 2;
			level = level - hide + 1;
		}
		f->hidden[i] = hide;
		if (level + 1 > f->levels)
			f->levels = level + 1;
	}
	return 0;
}

int
svg_fold_level(struct svg_fold *f, const struct flame_node *x, uint32_t *fold)
{
	*fold = 0;
	if (f->hidden == NULL || x->depth < SVG_FOLD_AT) {
		f->shift = 0;
		return (int)(x->depth + f->base);
	}
	if (x->depth == SVG_FOLD_AT) {
		f->shift = f->at < f->nroots ? f->hidden[f->at++] : 0;
		*fold = f->shift;
		return (int)(x->depth + f->base);
	}
	if (f->shift == 0)
		return (int)(x->depth + f->base);
	if (x->depth <= SVG_FOLD_AT + f->shift)
		return -1;
	return (int)(x->depth - f->shift + 1 + f->base);
}

void
svg_fold_free(struct svg_fold *f)
{
	free(f->hidden);
	f->hidden = NULL;
}
