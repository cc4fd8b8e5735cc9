/*
 * heatmap_stacks.c - the stacks of each second of a heat map: a trie of
 * frames (interned names, common/intern.h; children by (parent, frame) in a
 * common/hash.h table), a cache from whole stacks to their trie node, and
 * per column the (node, count) entries.  See heatmap.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "heatmap_impl.h"
#include "tree.h"

int
heatmap_stacks_init(struct heatmap *hm)
{
	int	sts;

	if ((sts = intern_init(&hm->frames)) < 0 ||
	    (sts = hash_table_init(&hm->node_index, 0)) < 0 ||
	    (sts = hash_table_init(&hm->stack_cache, 0)) < 0 ||
	    (sts = array_reserve(&hm->nodes, &hm->nodes_cap, 1)) < 0)
		return sts;
	/* node 0: the virtual root above every process */
	memset(&hm->nodes[0], 0, sizeof(hm->nodes[0]));
	hm->nnodes = 1;
	return 0;
}

void
heatmap_stacks_free(struct heatmap *hm)
{
	size_t	i;

	for (i = 0; i < hm->ncols; i++)
		free(hm->stacks[i].v);
	intern_free(&hm->frames);
	free(hm->frame_types);
	free(hm->nodes);
	hash_table_free(&hm->node_index);
	hash_table_free(&hm->stack_cache);
	free(hm->join);
}

/* ---- the trie ---- */

static int
intern_frame(struct heatmap *hm, const char *name, size_t len, int is_root, uint32_t *id)
{
	size_t	n = hm->frames.count;

	if (array_reserve(&hm->frame_types, &hm->frame_types_cap, n + 1) < 0 ||
	    intern_put(&hm->frames, name, len, 0, id) < 0)
		return -ENOMEM;
	if (*id == n)
		hm->frame_types[n] = function_type_n(name, len, is_root);
	return 0;
}

static int
child_node(struct heatmap *hm, uint32_t parent, uint32_t frame, uint32_t *id)
{
	uint64_t		key = hash_mix((uint64_t)parent << 32 | frame);
	struct hash_slot	*s = hash_table_find(&hm->node_index, key);

	if (!hash_slot_empty(s)) {
		*id = hash_slot_value(s);
		return 0;
	}
	if (hm->nnodes >= UINT32_MAX - 1 ||
	    array_reserve(&hm->nodes, &hm->nodes_cap, hm->nnodes + 1) < 0 ||
	    hash_table_insert(&hm->node_index, s, key, (uint32_t)hm->nnodes) < 0)
		return -ENOMEM;
	hm->nodes[hm->nnodes].parent = parent;
	hm->nodes[hm->nnodes].frame = frame;
	*id = (uint32_t)hm->nnodes++;
	return 0;
}

static int
walk_path(struct heatmap *hm, const char *const *path, size_t n, uint32_t *node)
{
	uint32_t	frame;
	size_t		i;
	int		sts;

	for (*node = 0, i = 0; i < n; i++) {
		if ((sts = intern_frame(hm, path[i], strlen(path[i]), i == 0, &frame)) < 0 ||
		    (sts = child_node(hm, *node, frame, node)) < 0)
			return sts;
	}
	return 0;
}

static int
walk_folded(struct heatmap *hm, const char *p, uint32_t *node)
{
	const char	*e;
	uint32_t	frame;
	int		sts;

	for (*node = 0;; p = e + 1) {
		e = strchr(p, ';');
		if ((sts = intern_frame(hm, p, e ? (size_t)(e - p) : strlen(p), *node == 0,
					&frame)) < 0 ||
		    (sts = child_node(hm, *node, frame, node)) < 0)
			return sts;
		if (e == NULL)
			return 0;
	}
}

/* ---- whole-stack cache ---- */

/* Does node's path, root first, spell frames "a;b;c" (len bytes)? */
static int
node_is_folded(const struct heatmap *hm, uint32_t node, const char *s, size_t len)
{
	size_t	end = len;

	for (; node != 0; node = hm->nodes[node].parent) {
		const char	*f = heatmap_frame(hm, hm->nodes[node].frame);
		size_t		flen = strlen(f);

		/* a frame holding ';' came from a path: the folded text differs */
		if (flen > end || memcmp(s + end - flen, f, flen) != 0 || strchr(f, ';'))
			return 0;
		end -= flen;
		if (hm->nodes[node].parent != 0) {
			if (end == 0 || s[end - 1] != ';')
				return 0;
			end--;
		}
	}
	return end == 0;
}

static int
node_is_path(const struct heatmap *hm, uint32_t node, const char *const *path, size_t n)
{
	for (; node != 0 && n > 0; node = hm->nodes[node].parent)
		if (strcmp(heatmap_frame(hm, hm->nodes[node].frame), path[--n]) != 0)
			return 0;
	return node == 0 && n == 0;
}

/* path joined with ';' into hm->join, for hashing */
static int
join_path(struct heatmap *hm, const char *const *path, size_t n, size_t *len)
{
	size_t	i, need = 1, k;

	for (i = 0; i < n; i++)
		need += strlen(path[i]) + 1;
	if (array_reserve(&hm->join, &hm->join_cap, need) < 0)
		return -ENOMEM;
	for (i = 0, *len = 0; i < n; i++) {
		if (i)
			hm->join[(*len)++] = ';';
		k = strlen(path[i]);
		memcpy(hm->join + *len, path[i], k);
		*len += k;
	}
	return 0;
}

/* Find or make the node of a stack given either as folded text or as a path. */
static int
stack_node(struct heatmap *hm, const char *folded, const char *const *path, size_t n,
	   uint32_t *node)
{
	struct hash_slot	*s;
	uint64_t		key;
	size_t			len = 0;
	int			sts;

	if (folded)
		len = strlen(folded);
	else if ((sts = join_path(hm, path, n, &len)) < 0)
		return sts;
	/* the same bytes whichever form: both find each other */
	key = hash_bytes(folded ? folded : hm->join, len);
	for (s = hash_table_find(&hm->stack_cache, key); !hash_slot_empty(s);
	     s = hash_table_next(&hm->stack_cache, key, s)) {
		*node = hash_slot_value(s);
		if (folded ? node_is_folded(hm, *node, folded, len) : node_is_path(hm, *node, path, n))
			return 0;
	}
	sts = folded ? walk_folded(hm, folded, node) : walk_path(hm, path, n, node);
	if (sts < 0)
		return sts;
	/* the walk grew other tables only: s is still where key goes */
	return hash_table_insert(&hm->stack_cache, s, key, *node);
}

static int
column_append(struct heatmap_column_stacks *c, uint32_t node, uint64_t count)
{
	if (array_reserve(&c->v, &c->cap, c->n + 1) < 0)
		return -ENOMEM;
	c->v[c->n].node = node;
	c->v[c->n].count = count;
	c->n++;
	return 0;
}

/* ---- adding stacks ---- */

int
heatmap_add_stack(struct heatmap *hm, int64_t sec, const char *const *path,
		  size_t n, uint64_t count)
{
	uint32_t	node;
	size_t		col;
	int		sts;

	if (n == 0)
		return -EINVAL;
	if (heatmap_outside(hm, sec))
		return 0;
	if ((sts = stack_node(hm, NULL, path, n, &node)) < 0 ||
	    (sts = heatmap_column_of(hm, sec, &col)) < 0)
		return sts;
	return column_append(&hm->stacks[col], node, count);
}

int
heatmap_add_folded(struct heatmap *hm, int64_t sec, const char *frames, uint64_t count)
{
	uint32_t	node;
	size_t		col;
	int		sts;

	if (*frames == '\0')
		return -EINVAL;
	if (heatmap_outside(hm, sec))
		return 0;
	if ((sts = stack_node(hm, frames, NULL, 0, &node)) < 0 ||
	    (sts = heatmap_column_of(hm, sec, &col)) < 0)
		return sts;
	return column_append(&hm->stacks[col], node, count);
}

int64_t
heatmap_record_second(double t, double interval)
{
	return (int64_t)floor(t - interval / 2);
}

static int
by_node(const void *a, const void *b)
{
	const struct heatmap_entry *x = a, *y = b;

	return x->node < y->node ? -1 : x->node > y->node;
}

void
heatmap_finish(struct heatmap *hm)
{
	size_t	c, i, o;

	for (c = 0; c < hm->ncols; c++) {
		struct heatmap_column_stacks *s = &hm->stacks[c];
		if (s->merged == s->n)
			continue;
		qsort(s->v, s->n, sizeof(*s->v), by_node);
		for (i = o = 0; i < s->n; i++) {
			if (o > 0 && s->v[o - 1].node == s->v[i].node)
				s->v[o - 1].count += s->v[i].count;
			else
				s->v[o++] = s->v[i];
		}
		s->n = s->merged = o;
	}
}


uint64_t
heatmap_stack_total(const struct heatmap *hm)
{
	uint64_t	t = 0;
	size_t		c, i;

	for (c = 0; c < hm->ncols; c++)
		for (i = 0; i < hm->stacks[c].n; i++)
			t += hm->stacks[c].v[i].count;
	return t;
}

/* Call visit with node's path, root first. */
static int
visit_node(const struct heatmap *hm, uint32_t node, uint64_t count,
	   const char **path, heatmap_visit_fn visit, void *arg)
{
	size_t		depth = 0, i;
	uint32_t	n;

	for (n = node; n != 0; n = hm->nodes[n].parent)
		depth++;
	for (n = node, i = depth; n != 0; n = hm->nodes[n].parent)
		path[--i] = heatmap_frame(hm, hm->nodes[n].frame);
	return visit(path, depth, count, arg);
}

long
heatmap_range_stacks(const struct heatmap *hm, size_t col_from, size_t col_to,
		     heatmap_visit_fn visit, void *arg)
{
	uint64_t	*sum;
	const char	**path;
	size_t		c, i;
	long		distinct = 0;
	int		sts = 0;

	if (col_to >= hm->ncols)
		col_to = hm->ncols ? hm->ncols - 1 : 0;
	sum = calloc(hm->nnodes, sizeof(*sum));
	path = calloc(hm->nnodes, sizeof(*path));	/* a path is at most every node */
	if (sum == NULL || path == NULL) {
		free(sum);
		free(path);
		return -ENOMEM;
	}
	for (c = col_from; c <= col_to && c < hm->ncols; c++)
		for (i = 0; i < hm->stacks[c].n; i++)
			sum[hm->stacks[c].v[i].node] += hm->stacks[c].v[i].count;
	for (i = 1; i < hm->nnodes && sts == 0; i++) {
		if (sum[i] == 0)
			continue;
		distinct++;
		sts = visit_node(hm, (uint32_t)i, sum[i], path, visit, arg);
	}
	free(sum);
	free(path);
	return sts < 0 ? sts : distinct;
}
