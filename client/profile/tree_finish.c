/*
 * tree_finish.c - turn the tree built by flame_tree_add() into its final,
 * deterministic shape: siblings sorted by (name, type), nodes numbered in
 * pre-order, functions numbered by first appearance, totals summed.
 *
 * Nodes and functions are permuted in place; the scratch arrays are a few
 * uint32 per node, so finishing a 1M-node tree needs no second node array.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

struct child_sort {
	const struct flame_node	*nodes;
	const uint32_t		*rank;
};

static int
compare_children(const void *a, const void *b, void *arg)
{
	const struct child_sort *cs = arg;
	uint32_t ra = cs->rank[cs->nodes[*(const uint32_t *)a].function];
	uint32_t rb = cs->rank[cs->nodes[*(const uint32_t *)b].function];

	return (ra > rb) - (ra < rb);
}

static size_t
parent_slot(const struct flame_node *x, size_t n)
{
	return x->parent < 0 ? n : (size_t)x->parent;
}

/*
 * Children of every node as one array (list) indexed by start[]: the
 * children of node p are list[start[p] .. start[p+1]), the roots are those
 * of the virtual node n.  Each group is sorted by function rank.
 */
static int
children_lists(const struct flame_tree *t, const uint32_t *rank,
	       uint32_t **startp, uint32_t **listp)
{
	size_t		n = t->nnodes, i;
	uint32_t	*start = calloc(n + 2, sizeof(*start));
	uint32_t	*list = malloc((n + 1) * sizeof(*list));
	struct child_sort cs = { t->nodes, rank };

	if (start == NULL || list == NULL) {
		free(start);
		free(list);
		return -ENOMEM;
	}
	/* count each group, make start[p] its end, then fill it backwards so
	 * that start[p] ends at its beginning */
	for (i = 0; i < n; i++)
		start[parent_slot(&t->nodes[i], n)]++;
	for (i = 1; i <= n; i++)
		start[i] += start[i - 1];
	start[n + 1] = (uint32_t)n;
	for (i = n; i-- > 0; )
		list[--start[parent_slot(&t->nodes[i], n)]] = (uint32_t)i;
	for (i = 0; i <= n; i++)
		if (start[i + 1] - start[i] > 1)
			qsort_r(list + start[i], start[i + 1] - start[i], sizeof(*list),
				compare_children, &cs);
	*startp = start;
	*listp = list;
	return 0;
}

/* new_id[old]: the node's position in a pre-order walk of sorted children. */
static int
preorder_ids(size_t n, const uint32_t *start, const uint32_t *list, uint32_t *new_id)
{
	uint32_t	*stack = malloc((n + 1) * sizeof(*stack));
	size_t		top = 0, next = 0, k;
	uint32_t	x;

	if (stack == NULL)
		return -ENOMEM;
	for (k = start[n + 1]; k-- > start[n]; )
		stack[top++] = list[k];
	while (top > 0) {
		x = stack[--top];
		new_id[x] = (uint32_t)next++;
		for (k = start[x + 1]; k-- > start[x]; )
			stack[top++] = list[k];
	}
	free(stack);
	return 0;
}

/* Move nodes to their new positions; new_id is consumed. */
static void
permute_nodes(struct flame_node *nodes, size_t n, uint32_t *new_id)
{
	size_t			i;
	uint32_t		j, tmp_id;
	struct flame_node	tmp;

	for (i = 0; i < n; i++)
		if (nodes[i].parent >= 0)
			nodes[i].parent = (int32_t)new_id[nodes[i].parent];
	for (i = 0; i < n; i++) {
		while ((j = new_id[i]) != i) {
			tmp = nodes[j]; nodes[j] = nodes[i]; nodes[i] = tmp;
			tmp_id = new_id[j]; new_id[j] = j; new_id[i] = tmp_id;
		}
	}
}

/* depth, first_child, next_sibling, and totals (children follow parents). */
static uint32_t
link_and_total(struct flame_node *nodes, size_t n, uint32_t *last_child)
{
	uint32_t	max_depth = 0, last_root = NO_INDEX;
	size_t		i;

	for (i = 0; i < n; i++)
		last_child[i] = NO_INDEX;
	for (i = 0; i < n; i++) {
		struct flame_node *x = &nodes[i];
		uint32_t *prev = x->parent < 0 ? &last_root : &last_child[x->parent];

		x->first_child = x->next_sibling = 0;
		x->depth = x->parent < 0 ? 0 : nodes[x->parent].depth + 1;
		if (x->depth > max_depth)
			max_depth = x->depth;
		if (*prev == NO_INDEX) {
			if (x->parent >= 0)
				nodes[x->parent].first_child = (uint32_t)i;
		} else
			nodes[*prev].next_sibling = (uint32_t)i;
		*prev = (uint32_t)i;
		x->total_samples = x->self_samples;
		x->total_us = x->self_us;
	}
	for (i = n; i-- > 0; ) {
		if (nodes[i].parent >= 0) {
			nodes[nodes[i].parent].total_samples += nodes[i].total_samples;
			nodes[nodes[i].parent].total_us += nodes[i].total_us;
		}
	}
	return max_depth;
}

/* Number functions by first appearance in node order; scratch has nf slots. */
static void
renumber_functions(struct flame_tree *t, uint32_t *new_id)
{
	size_t			i, next = 0;
	uint32_t		j, tmp_id;
	struct flame_function	tmp;

	for (i = 0; i < t->nfunctions; i++)
		new_id[i] = NO_INDEX;
	for (i = 0; i < t->nnodes; i++)
		if (new_id[t->nodes[i].function] == NO_INDEX)
			new_id[t->nodes[i].function] = (uint32_t)next++;
	for (i = 0; i < t->nfunctions; i++)	/* left by a failed add */
		if (new_id[i] == NO_INDEX)
			new_id[i] = (uint32_t)next++;
	for (i = 0; i < t->nnodes; i++)
		t->nodes[i].function = new_id[t->nodes[i].function];
	for (i = 0; i < t->nfunctions; i++) {
		while ((j = new_id[i]) != i) {
			tmp = t->functions[j]; t->functions[j] = t->functions[i]; t->functions[i] = tmp;
			tmp_id = new_id[j]; new_id[j] = j; new_id[i] = tmp_id;
		}
	}
}

/*
 * A function's total counts each sample once even when the function recurs
 * on the path: a node adds its total only if no ancestor is the same
 * function.  on_path[f] counts f's occurrences on the current path.
 */
static int
function_totals(struct flame_tree *t)
{
	uint32_t	*on_path = calloc(t->nfunctions + 1, sizeof(*on_path));
	uint32_t	*path = malloc((t->max_depth + 1) * sizeof(*path));
	size_t		i, depth = 0;

	if (on_path == NULL || path == NULL) {
		free(on_path);
		free(path);
		return -ENOMEM;
	}
	for (i = 0; i < t->nfunctions; i++) {
		struct flame_function *f = &t->functions[i];
		f->self_samples = f->total_samples = f->self_us = f->total_us = 0;
	}
	for (i = 0; i < t->nnodes; i++) {
		const struct flame_node *x = &t->nodes[i];
		struct flame_function *f = &t->functions[x->function];

		while (depth > x->depth)
			on_path[t->nodes[path[--depth]].function]--;
		f->self_samples += x->self_samples;
		f->self_us += x->self_us;
		if (on_path[x->function]++ == 0) {
			f->total_samples += x->total_samples;
			f->total_us += x->total_us;
		}
		path[depth++] = (uint32_t)i;
	}
	free(on_path);
	free(path);
	return 0;
}

int
flame_tree_finish(struct flame_tree *t)
{
	uint32_t	*rank, *start = NULL, *list = NULL, *scratch;
	size_t		n = t->nnodes;
	int		sts;

	if (t->finished)
		return -EINVAL;
	tree_index_free(t);
	free(t->last);
	t->last = NULL;
	t->last_len = t->last_cap = 0;
	scratch = malloc((n > t->nfunctions ? n : t->nfunctions) * sizeof(*scratch) + 1);
	if (scratch == NULL || (rank = function_ranks(t)) == NULL) {
		free(scratch);
		return -ENOMEM;
	}
	sts = children_lists(t, rank, &start, &list);
	free(rank);
	if (sts == 0)
		sts = preorder_ids(n, start, list, scratch);
	free(start);
	free(list);
	if (sts < 0) {
		free(scratch);
		return sts;
	}
	permute_nodes(t->nodes, n, scratch);
	t->max_depth = link_and_total(t->nodes, n, scratch);
	renumber_functions(t, scratch);
	free(scratch);
	if ((sts = function_totals(t)) < 0)
		return sts;
	t->finished = 1;
	return 0;
}
