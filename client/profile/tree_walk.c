/*
 * tree_walk.c - the nodes of a finished tree, in pre-order, derived from
 * its sorted stacks (tree_finish.c says how): stack after stack, the
 * frames from its lcp on, each with its parent (the node last seen one
 * level up) and its totals (the sums over the stacks below it).
 */
#include <stdint.h>
#include <stdlib.h>
#include "tree_impl.h"

struct flame_walk {
	const struct flame_tree	*t;
	size_t			k;		/* the stack being walked */
	uint32_t		depth;		/* the next node's depth in it */
	uint32_t		next_id;
	uint32_t		*node_at;	/* node id by depth, on the current path */
	uint32_t		*end_at;	/* by depth: the first stack past its subtree */
	struct flame_node	node;
};

struct flame_walk *
flame_walk_new(const struct flame_tree *t)
{
	struct flame_walk	*w = calloc(1, sizeof(*w));
	size_t			depth = (size_t)t->max_depth + 1;

	if (w == NULL || !t->finished ||
	    (w->node_at = malloc(depth * sizeof(*w->node_at))) == NULL ||
	    (w->end_at = malloc(depth * sizeof(*w->end_at))) == NULL) {
		flame_walk_free(w);
		return NULL;
	}
	w->t = t;
	w->k = SIZE_MAX;	/* no stack entered yet */
	return w;
}

void
flame_walk_free(struct flame_walk *w)
{
	if (w == NULL)
		return;
	free(w->node_at);
	free(w->end_at);
	free(w);
}

/* Enter stack k: where the subtree of each of its new nodes ends.  As the
 * depth goes up the end can only come closer, so one pass from the
 * deepest node up jumps along next_lower at most run length + 1 times. */
static void
enter_stack(struct flame_walk *w, size_t k)
{
	const struct flame_tree	*t = w->t;
	const struct tree_stack	*s = &t->stacks[k];
	size_t			j = k + 1;
	uint32_t		d = s->len;

	while (d-- > s->lcp) {
		while (j < t->nstacks && t->stacks[j].lcp > d)
			j = t->next_lower[j];
		w->end_at[d] = (uint32_t)j;
	}
	w->k = k;
	w->depth = s->lcp;
}

const struct flame_node *
flame_walk_next(struct flame_walk *w)
{
	const struct flame_tree	*t = w->t;
	const struct tree_stack	*s;
	struct flame_node	*x = &w->node;
	uint32_t		d;
	size_t			end;

	if (w->k == SIZE_MAX || w->depth == t->stacks[w->k].len) {
		size_t next = w->k == SIZE_MAX ? 0 : w->k + 1;

		if (next >= t->nstacks)
			return NULL;
		enter_stack(w, next);
	}
	s = &t->stacks[w->k];
	d = w->depth++;
	end = w->end_at[d];
	x->id = w->next_id++;
	x->function = t->frames[x->id];
	x->depth = d;
	x->parent = d ? (int32_t)w->node_at[d - 1] : -1;
	w->node_at[d] = x->id;
	x->total_samples = t->cum_samples[end] - t->cum_samples[w->k];
	x->total_us = t->cum_us[end] - t->cum_us[w->k];
	x->self_samples = d + 1 == s->len ? s->samples : 0;
	x->self_us = d + 1 == s->len ? s->us : 0;
	if (t->base != NULL) {
		const struct tree_values *b = &t->base[s->id];

		x->base_total_samples = t->cum_base_samples[end] - t->cum_base_samples[w->k];
		x->base_total_us = t->cum_base_us[end] - t->cum_base_us[w->k];
		x->base_self_samples = d + 1 == s->len ? b->samples : 0;
		x->base_self_us = d + 1 == s->len ? b->us : 0;
	}
	return x;
}
