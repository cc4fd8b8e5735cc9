/*
 * tree_finish.c - turn the stacks added to a tree into its final,
 * deterministic shape: stacks sorted by the (name, type) order of their
 * frames, which is the pre-order of the tree with siblings sorted;
 * functions numbered by first appearance in that order; what a walk needs
 * to derive each node's totals; the functions' totals.
 *
 * No node is built: after sorting, stack k's nodes are its frames from
 * depth lcp (the frames it shares with stack k-1) on, and the subtree of
 * its node at depth d holds stacks k .. e-1, e the first later stack that
 * shares d frames or fewer.  cum_* give the sums over such a range;
 * next_lower lets a walk find e in steps that, over a run, add up to the
 * run's length (tree_walk.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "key_sort.h"
#include "tree_impl.h"

static int
compare_functions(const void *a, const void *b)
{
	const struct flame_function *fa = *(const struct flame_function *const *)a;
	const struct flame_function *fb = *(const struct flame_function *const *)b;
	int	c = strcmp(fa->name, fb->name);

	return c ? c : (fa->type > fb->type) - (fa->type < fb->type);
}

/* rank[f]: position of function f when all are sorted by (name, type). */
static uint32_t *
function_ranks(const struct flame_tree *t)
{
	const struct flame_function **order;
	uint32_t	*rank;
	size_t		i;

	order = malloc((t->nfunctions + 1) * sizeof(*order));
	rank = malloc((t->nfunctions + 1) * sizeof(*rank));
	if (order == NULL || rank == NULL) {
		free(order);
		free(rank);
		return NULL;
	}
	for (i = 0; i < t->nfunctions; i++)
		order[i] = &t->functions[i];
	qsort(order, t->nfunctions, sizeof(*order), compare_functions);
	for (i = 0; i < t->nfunctions; i++)
		rank[order[i] - t->functions] = (uint32_t)i;
	free(order);
	return rank;
}

/* Stacks of equal keys in the order of their frames' ranks; a prefix
 * comes first. */
static int
compare_tied(const void *a, const void *b, void *arg)
{
	const struct flame_tree	*t = arg;
	const struct tree_stack	*x = &t->stacks[((const struct key_item *)a)->item];
	const struct tree_stack	*y = &t->stacks[((const struct key_item *)b)->item];
	const uint32_t		*p = t->frames + x->first, *q = t->frames + y->first;
	uint32_t		i, n = x->len < y->len ? x->len : y->len;

	for (i = 0; i < n; i++)
		if (p[i] != q[i])
			return p[i] < q[i] ? -1 : 1;
	return (x->len > y->len) - (x->len < y->len);
}

/* As many first frames as fit in 63 bits, each as rank + 1 (0: no such
 * frame, so a prefix sorts first), the first in the highest bits. */
static void
stack_keys(struct flame_tree *t)
{
	unsigned	bits = 1, per, i;
	size_t		k;

	while (bits < 32 && ((uint64_t)1 << bits) < t->nfunctions + 2)
		bits++;
	per = 63 / bits;
	for (k = 0; k < t->nstacks; k++) {
		struct tree_stack	*s = &t->stacks[k];
		uint64_t		key = 0;

		for (i = 0; i < per; i++)
			key = key << bits | (i < s->len ? t->frames[s->first + i] + 1ULL : 0);
		s->key = key;
	}
}

/* Stacks in the order of their frames' ranks: by the packed ranks of the
 * first frames (key_sort), then, where those are equal, by the rest. */
static int
sort_stacks(struct flame_tree *t, const uint32_t *rank)
{
	size_t			n = t->nstacks, i, j;
	struct key_item		*order = malloc((n + 1) * sizeof(*order));
	struct tree_stack	*sorted = malloc((n + 1) * sizeof(*sorted));

	for (i = 0; i < t->nframes; i++)
		t->frames[i] = rank[t->frames[i]];
	stack_keys(t);
	for (i = 0; order != NULL && i < n; i++)
		order[i] = (struct key_item){ t->stacks[i].key, (uint32_t)i };
	if (order == NULL || sorted == NULL || key_sort(order, n) < 0) {
		free(order);
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && order[j].key == order[i].key; j++)
			;
		if (j - i > 1)
			qsort_r(order + i, j - i, sizeof(*order), compare_tied, t);
	}
	for (i = 0; i < n; i++)
		sorted[i] = t->stacks[order[i].item];
	free(order);
	free(t->stacks);
	t->stacks = sorted;
	t->stacks_cap = n + 1;
	return 0;
}

/* lcp of each stack with the one before; node and root counts, depth.
 * Stacks are distinct, so each has at least its last frame of its own. */
static void
shared_prefixes(struct flame_tree *t)
{
	struct tree_stack	*prev = NULL, *s;
	size_t			k;
	uint32_t		i, n;

	t->nnodes = t->nroots = 0;
	t->max_depth = 0;
	for (k = 0; k < t->nstacks; prev = s, k++) {
		s = &t->stacks[k];
		i = 0;
		if (prev != NULL) {
			n = s->len < prev->len ? s->len : prev->len;
			while (i < n && t->frames[s->first + i] == t->frames[prev->first + i])
				i++;
		}
		s->lcp = i;
		t->nnodes += s->len - i;
		t->nroots += i == 0;
		if (s->len - 1 > t->max_depth)
			t->max_depth = s->len - 1;
	}
}

/*
 * Keep of each stack only the frames that are its own nodes, in node
 * order: walks then read frames[] straight through, and a sorted
 * profile's long shared prefixes are stored once.  As they are copied,
 * number the functions by first appearance in node order (those left by
 * a failed add last), write each frame's number for its rank, and put
 * the functions in that order.
 */
static int
node_frames(struct flame_tree *t, const uint32_t *rank)
{
	size_t			nf = t->nfunctions, k, i, at = 0, next = 0;
	uint32_t		*nodes = malloc((t->nnodes + 1) * sizeof(*nodes));
	uint32_t		*by_rank = malloc((nf + 1) * sizeof(*by_rank));
	struct flame_function	*moved = malloc((nf + 1) * sizeof(*moved));

	if (nodes == NULL || by_rank == NULL || moved == NULL) {
		free(nodes);
		free(by_rank);
		free(moved);
		return -ENOMEM;
	}
	for (i = 0; i < nf; i++)
		by_rank[i] = NO_INDEX;
	for (k = 0; k < t->nstacks; k++) {
		struct tree_stack	*s = &t->stacks[k];
		const uint32_t		*own = t->frames + s->first;

		for (i = s->lcp; i < s->len; i++) {
			uint32_t *number = &by_rank[own[i]];

			if (*number == NO_INDEX)
				*number = (uint32_t)next++;
			nodes[at++] = *number;
		}
		s->first = at - (s->len - s->lcp);
	}
	for (i = 0; i < nf; i++)
		if (by_rank[i] == NO_INDEX)
			by_rank[i] = (uint32_t)next++;
	for (i = 0; i < nf; i++)
		moved[by_rank[rank[i]]] = t->functions[i];
	free(t->frames);
	t->frames = nodes;
	t->nframes = t->frames_cap = t->nnodes;
	free(t->functions);
	t->functions = moved;
	t->functions_cap = nf + 1;
	free(by_rank);
	return 0;
}

/* v * to / from, rounded down (difffolded.pl -n: int()); 128 bits between. */
static uint64_t
scaled(uint64_t v, uint64_t to, uint64_t from)
{
	return from ? (uint64_t)((unsigned __int128)v * to / from) : v;
}

/* --normalize: the baseline stacks scaled to the current totals. */
static void
normalize_baseline(struct flame_tree *t)
{
	uint64_t	s = 0, u = 0, bs = 0, bu = 0;
	size_t		k;

	for (k = 0; k < t->nstacks; k++) {
		s += t->stacks[k].samples;
		u += t->stacks[k].us;
		bs += t->base[k].samples;
		bu += t->base[k].us;
	}
	for (k = 0; k < t->nstacks; k++) {
		t->base[k].samples = scaled(t->base[k].samples, s, bs);
		t->base[k].us = scaled(t->base[k].us, u, bu);
	}
}

/* Prefix sums in sorted order: values[k] of stack k into cum[k + 1]. */
static uint64_t *
prefix_sums(const struct flame_tree *t, int baseline, int us)
{
	uint64_t	*cum = malloc((t->nstacks + 1) * sizeof(*cum));
	size_t		k;

	if (cum == NULL)
		return NULL;
	cum[0] = 0;
	for (k = 0; k < t->nstacks; k++) {
		const struct tree_stack	*st = &t->stacks[k];
		uint64_t		v;

		if (baseline)
			v = us ? t->base[st->id].us : t->base[st->id].samples;
		else
			v = us ? st->us : st->samples;
		cum[k + 1] = cum[k] + v;
	}
	return cum;
}

/* Prefix sums of the stacks' values, and next_lower[k]: the first j > k
 * whose lcp is below stack k's (nstacks if none). */
static int
range_sums(struct flame_tree *t)
{
	size_t		m = t->nstacks, k, j;

	if (t->base != NULL && t->normalize)
		normalize_baseline(t);
	t->cum_samples = prefix_sums(t, 0, 0);
	t->cum_us = prefix_sums(t, 0, 1);
	if (t->base != NULL) {
		t->cum_base_samples = prefix_sums(t, 1, 0);
		t->cum_base_us = prefix_sums(t, 1, 1);
		if (t->cum_base_samples == NULL || t->cum_base_us == NULL)
			return -ENOMEM;
	}
	t->next_lower = malloc((m + 1) * sizeof(*t->next_lower));
	if (t->cum_samples == NULL || t->cum_us == NULL || t->next_lower == NULL)
		return -ENOMEM;
	for (k = m; k-- > 0; ) {
		for (j = k + 1; j < m && t->stacks[j].lcp >= t->stacks[k].lcp; )
			j = t->next_lower[j];
		t->next_lower[k] = (uint32_t)j;
	}
	return 0;
}

/* What a part of the walk adds to each function. */
struct function_sums {
	uint64_t	self_samples, total_samples, self_us, total_us;
	uint64_t	base_self_us, base_total_us;
};

struct totals_part {
	const struct flame_tree	*t;
	size_t			from, to;
	struct function_sums	*sums;		/* by function id */
	int			sts;
};

/*
 * A function's total counts each sample once even when the function recurs
 * on the path: a node adds its total only if no ancestor is the same
 * function.  on_path[f] counts f's occurrences on the current path, the
 * part's first node's ancestors included.
 */
static void *
sum_part(void *arg)
{
	struct totals_part	*p = arg;
	const struct flame_tree	*t = p->t;
	uint32_t		*on_path = calloc(t->nfunctions + 1, sizeof(*on_path));
	uint32_t		*path = malloc((t->max_depth + 1) * sizeof(*path));
	struct flame_walk	*w = flame_walk_new(t);
	const struct flame_node	*x;
	size_t			depth, i;

	p->sts = -ENOMEM;
	if (on_path != NULL && path != NULL && w != NULL && p->sums != NULL) {
		flame_walk_part(w, p->from, p->to);
		depth = flame_walk_above(w, path);
		for (i = 0; i < depth; i++)
			on_path[path[i]]++;
		while ((x = flame_walk_next(w)) != NULL) {
			struct function_sums *f = &p->sums[x->function];

			while (depth > x->depth)
				on_path[path[--depth]]--;
			f->self_samples += x->self_samples;
			f->self_us += x->self_us;
			f->base_self_us += x->base_self_us;
			if (on_path[x->function]++ == 0) {
				f->total_samples += x->total_samples;
				f->total_us += x->total_us;
				f->base_total_us += x->base_total_us;
			}
			path[depth++] = x->function;
		}
		p->sts = 0;
	}
	flame_walk_free(w);
	free(on_path);
	free(path);
	return NULL;
}

/* A big tree sums its walk's second half on a thread. */
static int
function_totals(struct flame_tree *t)
{
	struct totals_part	part[2];
	size_t			n = t->nnodes, nparts = n >= FLAME_WALK_SPLIT ? 2 : 1, i, f;
	pthread_t		thread;
	bool			threaded = false;
	int			sts = 0;

	for (i = 0; i < nparts; i++)
		part[i] = (struct totals_part){ .t = t, .from = n * i / nparts,
						.to = n * (i + 1) / nparts,
						.sums = calloc(t->nfunctions + 1,
							       sizeof(*part[i].sums)) };
	if (nparts == 2)
		threaded = pthread_create(&thread, NULL, sum_part, &part[1]) == 0;
	sum_part(&part[0]);
	if (threaded)
		pthread_join(thread, NULL);
	else if (nparts == 2)
		sum_part(&part[1]);
	for (i = 0; i < nparts; i++) {
		if (part[i].sts < 0)
			sts = part[i].sts;
		for (f = 0; sts == 0 && f < t->nfunctions; f++) {
			struct flame_function		*to = &t->functions[f];
			const struct function_sums	*from = &part[i].sums[f];

			to->self_samples += from->self_samples;
			to->total_samples += from->total_samples;
			to->self_us += from->self_us;
			to->total_us += from->total_us;
			to->base_self_us += from->base_self_us;
			to->base_total_us += from->base_total_us;
		}
		free(part[i].sums);
	}
	return sts;
}

int
flame_tree_finish(struct flame_tree *t)
{
	uint32_t	*rank;
	int		sts;

	if (t->finished)
		return -EINVAL;
	tree_index_free(t);
	free(t->last);
	t->last = NULL;
	t->last_len = t->last_cap = 0;
	t->finished = 1;
	if ((rank = function_ranks(t)) == NULL) {
		sts = -ENOMEM;
	} else {
		if ((sts = sort_stacks(t, rank)) == 0) {
			shared_prefixes(t);
			sts = node_frames(t, rank);
		}
		free(rank);
	}
	if (sts == 0 && (sts = range_sums(t)) == 0)
		sts = function_totals(t);
	if (sts < 0)		/* half sorted: an empty tree, that takes no more */
		t->nstacks = t->nnodes = t->nroots = 0;
	return sts;
}
