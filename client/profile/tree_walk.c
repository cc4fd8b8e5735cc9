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
	uint32_t		end_id;		/* the first node not handed out */
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
	w->end_id = (uint32_t)t->nnodes;
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

/*
 * The part [from, to) of the walk.  Stack k holds node from; its nodes
 * above depth lcp are its own, those below are the last nodes that the
 * stacks before it made at each depth: going back, the first stack whose
 * lcp is under a depth made that depth's node (those after it share it).
 */
void
flame_walk_part(struct flame_walk *w, size_t from, size_t to)
{
	const struct flame_tree	*t = w->t;
	size_t			lo = 0, hi = t->nstacks, k, j;
	uint32_t		need, d;

	w->end_id = (uint32_t)(to < t->nnodes ? to : t->nnodes);
	if (from >= w->end_id) {
		w->next_id = w->end_id;
		return;
	}
	while (hi - lo > 1) {		/* the last stack whose first node <= from */
		size_t	mid = lo + (hi - lo) / 2;

		if (t->stacks[mid].first <= from)
			lo = mid;
		else
			hi = mid;
	}
	k = lo;
	need = t->stacks[k].lcp;
	for (j = k; need > 0 && j-- > 0; )
		while (need > t->stacks[j].lcp) {
			need--;
			w->node_at[need] = (uint32_t)(t->stacks[j].first + need - t->stacks[j].lcp);
		}
	enter_stack(w, k);
	for (d = t->stacks[k].lcp; d < t->stacks[k].lcp + (from - t->stacks[k].first); d++)
		w->node_at[d] = (uint32_t)(t->stacks[k].first + d - t->stacks[k].lcp);
	w->depth = d;
	w->next_id = (uint32_t)from;
}

size_t
flame_walk_above(const struct flame_walk *w, uint32_t *functions)
{
	uint32_t	d;

	if (w->k == SIZE_MAX || w->next_id >= w->end_id)
		return 0;
	for (d = 0; d < w->depth; d++)
		functions[d] = w->t->frames[w->node_at[d]];
	return w->depth;
}

const struct flame_node *
flame_walk_next(struct flame_walk *w)
{
	const struct flame_tree	*t = w->t;
	const struct tree_stack	*s;
	struct flame_node	*x = &w->node;
	uint32_t		d;
	size_t			end;

	if (w->next_id >= w->end_id)
		return NULL;
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
