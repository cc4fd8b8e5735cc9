/*
 * tree.c - merge stacks into a function/node tree (see tree.h).
 *
 * Built for large profiles (1M samples, 100k distinct stacks):
 *  - each distinct (name, type) is interned once (common/intern.h);
 *  - a node is found by an open-addressing hash on (parent, function) whose
 *    slots hold the key (tree_index.c): one probe per frame, no per-node
 *    malloc, and the node array is touched only to create a node;
 *  - the frames a stack shares with the previous one are not looked up at
 *    all: folded input is usually sorted, so most prefixes repeat;
 *  - flame_tree_finish() sorts siblings by name and renumbers the nodes in
 *    pre-order in place (tree_finish.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/array.h"
#include "tree_impl.h"

char
function_type_n(const char *name, size_t len, int is_root)
{
	if (is_root)
		return len == 5 && memcmp(name, "Total", 5) == 0 ? 'H' : 'P';
	if (len >= 4 && name[0] == '[' && name[2] == ']' && name[3] == ' ') {
		switch (name[1]) {
		case 'p': return 'P';
		case 't': return 'T';
		case 'k': return 'K';
		case 'c': return 'C';
		case 'l': return 'L';
		}
	}
	return len > 0 && name[0] == '[' ? '?' : 'A';
}

/* The same without a length: the tree types every frame it adds, and a
 * strlen each would cost more than the test itself. */
char
function_type(const char *name, int is_root)
{
	if (is_root)
		return strcmp(name, "Total") == 0 ? 'H' : 'P';
	if (name[0] == '[' && name[1] != '\0' && name[2] == ']' && name[3] == ' ')
		return function_type_n(name, 4, 0);
	return name[0] == '[' ? '?' : 'A';
}

struct flame_tree *
flame_tree_new(void)
{
	struct flame_tree	*t = calloc(1, sizeof(*t));

	if (t != NULL && tree_index_init(t) < 0) {
		flame_tree_free(t);
		return NULL;
	}
	return t;
}

void
flame_tree_free(struct flame_tree *t)
{
	if (t == NULL)
		return;
	tree_index_free(t);
	intern_free(&t->names);
	free(t->last);
	free(t->functions);
	free(t->nodes);
	free(t);
}

void
flame_tree_set_object_leaves(struct flame_tree *t, int on)
{
	t->object_leaves = on;
}

/* How many leading frames of path are those of the previous stack.  With
 * object leaves a last frame differs in type from the same name above it,
 * so neither stack's last frame is taken from the cache. */
static size_t
shared_prefix(const struct flame_tree *t, const char *const *path, size_t n)
{
	size_t	i = 0, limit = n < t->last_len ? n : t->last_len;

	if (t->object_leaves && limit > 0)
		limit--;
	while (i < limit && strcmp(path[i], t->last[i].name) == 0)
		i++;
	return i;
}

int
flame_tree_add(struct flame_tree *t, const char *const *path, size_t n,
	       uint64_t samples, uint64_t value_us)
{
	uint32_t	parent, fid, nid;
	size_t		i;
	int		sts;

	if (t->finished || n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (path[i] == NULL)
			return -EINVAL;
	if (array_reserve(&t->last, &t->last_cap, n) < 0)
		return -ENOMEM;
	t->last_len = i = shared_prefix(t, path, n);
	parent = i ? t->last[i - 1].node : NO_INDEX;
	for (; i < n; i++) {
		char type = t->object_leaves && i == n - 1 && i > 0 ? 'O' :
			    function_type(path[i], i == 0);

		if ((sts = tree_intern_function(t, path[i], type, &fid)) < 0 ||
		    (sts = tree_child_node(t, parent, fid, &nid)) < 0)
			return sts;
		t->last[i].name = intern_name(&t->names, fid);	/* in cache: just compared */
		t->last[i].node = parent = nid;
		t->last_len = i + 1;
	}
	nid = t->last[n - 1].node;
	t->nodes[nid].self_samples += samples;
	t->nodes[nid].self_us += value_us;
	return 0;
}

/* ---- accessors -------------------------------------------------------- */

size_t
flame_tree_nnodes(const struct flame_tree *t)
{
	return t->nnodes;
}

const struct flame_node *
flame_tree_node(const struct flame_tree *t, size_t i)
{
	return i < t->nnodes ? &t->nodes[i] : NULL;
}

size_t
flame_tree_nfunctions(const struct flame_tree *t)
{
	return t->nfunctions;
}

const struct flame_function *
flame_tree_function(const struct flame_tree *t, size_t i)
{
	return i < t->nfunctions ? &t->functions[i] : NULL;
}

uint32_t
flame_tree_max_depth(const struct flame_tree *t)
{
	return t->max_depth;
}
