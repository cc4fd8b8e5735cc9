/*
 * tree.c - merge stacks into a function/node tree (see tree.h).
 *
 * Built for large profiles (1M samples, 100k distinct stacks):
 *  - each distinct (name, type) is interned once; names live in an arena;
 *  - a node is found by an open-addressing hash on (parent node, function),
 *    so adding a stack costs one probe per frame and no per-node malloc;
 *  - flame_tree_finish() sorts siblings by name and renumbers the nodes in
 *    pre-order in place, so no second copy of the node array is ever made.
 * Function ids are renumbered too, in order of first appearance in the
 * pre-order walk: the same set of stacks gives the same tree whatever
 * order they were added in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tree_impl.h"

/* ---- small helpers ---------------------------------------------------- */

static uint32_t
hash_name(const char *s, char type)
{
	uint32_t	h = 2166136261u;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (h ^ (unsigned char)type) * 16777619u;
}

static uint32_t
hash_pair(uint32_t parent, uint32_t function)
{
	uint64_t	x = ((uint64_t)parent << 32) | function;

	x ^= x >> 33;			/* murmur3 finalizer */
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return (uint32_t)x;
}

static int
grow(void **array, size_t *cap, size_t need, size_t elem)
{
	size_t	ncap;
	void	*p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 1024;
	while (ncap < need)
		ncap *= 2;
	if ((p = realloc(*array, ncap * elem)) == NULL)
		return -ENOMEM;
	*array = p;
	*cap = ncap;
	return 0;
}

static char *
arena_strdup(struct flame_tree *t, const char *s)
{
	size_t			len = strlen(s) + 1;
	struct arena_chunk	*c = t->arena;

	if (c == NULL || c->size - c->used < len) {
		size_t	size = len > ARENA_CHUNK ? len : ARENA_CHUNK;

		if ((c = malloc(sizeof(*c) + size)) == NULL)
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = t->arena;
		t->arena = c;
	}
	memcpy(c->data + c->used, s, len);
	c->used += len;
	return c->data + c->used - len;
}

static int
index_init(struct index_table *it, size_t size)
{
	it->slots = malloc(size * sizeof(*it->slots));
	if (it->slots == NULL)
		return -ENOMEM;
	memset(it->slots, 0xff, size * sizeof(*it->slots));
	it->mask = size - 1;
	it->count = 0;
	return 0;
}

static void
index_free(struct index_table *it)
{
	free(it->slots);
	memset(it, 0, sizeof(*it));
}

/* ---- function interning ----------------------------------------------- */

char
function_type(const char *name, int is_root)
{
	if (is_root)
		return strcmp(name, "Total") == 0 ? 'H' : 'P';
	if (name[0] == '[' && name[1] != '\0' && name[2] == ']' && name[3] == ' ') {
		switch (name[1]) {
		case 'p': return 'P';
		case 't': return 'T';
		case 'k': return 'K';
		case 'c': return 'C';
		case 'l': return 'L';
		}
	}
	return name[0] == '[' ? '?' : 'A';
}

/* Double the name index when it is half full, rehashing stored hashes. */
static int
by_name_grow(struct flame_tree *t)
{
	struct index_table	old = t->by_name;
	size_t			i, j;

	if (index_init(&t->by_name, (old.mask + 1) * 2) < 0) {
		t->by_name = old;
		return -ENOMEM;
	}
	for (i = 0; i <= old.mask; i++) {
		if (old.slots[i] == EMPTY)
			continue;
		j = t->function_hash[old.slots[i]] & t->by_name.mask;
		while (t->by_name.slots[j] != EMPTY)
			j = (j + 1) & t->by_name.mask;
		t->by_name.slots[j] = old.slots[i];
	}
	t->by_name.count = old.count;
	index_free(&old);
	return 0;
}

static int
new_function(struct flame_tree *t, const char *name, char type, uint32_t h, uint32_t *id)
{
	struct flame_function	*f;

	if (grow((void **)&t->functions, &t->functions_cap, t->nfunctions + 1, sizeof(*f)) < 0)
		return -ENOMEM;
	if (grow((void **)&t->function_hash, &t->function_hash_cap, t->nfunctions + 1,
		 sizeof(*t->function_hash)) < 0)
		return -ENOMEM;
	f = &t->functions[t->nfunctions];
	memset(f, 0, sizeof(*f));
	if ((f->name = arena_strdup(t, name)) == NULL)
		return -ENOMEM;
	f->type = type;
	t->function_hash[t->nfunctions] = h;
	*id = (uint32_t)t->nfunctions++;
	return 0;
}

static int
intern_function(struct flame_tree *t, const char *name, int is_root, uint32_t *id)
{
	char		type = function_type(name, is_root);
	uint32_t	h = hash_name(name, type);
	size_t		j = h & t->by_name.mask;
	uint32_t	k;

	while ((k = t->by_name.slots[j]) != EMPTY) {
		if (t->function_hash[k] == h && t->functions[k].type == type &&
		    strcmp(t->functions[k].name, name) == 0) {
			*id = k;
			return 0;
		}
		j = (j + 1) & t->by_name.mask;
	}
	if (new_function(t, name, type, h, id) < 0)
		return -ENOMEM;
	t->by_name.slots[j] = *id;
	if (++t->by_name.count * 2 > t->by_name.mask + 1)
		return by_name_grow(t);
	return 0;
}

/* ---- nodes ------------------------------------------------------------ */

static int
by_parent_grow(struct flame_tree *t)
{
	struct index_table	old = t->by_parent;
	size_t			i, j;

	if (index_init(&t->by_parent, (old.mask + 1) * 2) < 0) {
		t->by_parent = old;
		return -ENOMEM;
	}
	for (i = 0; i <= old.mask; i++) {
		const struct flame_node *n;

		if (old.slots[i] == EMPTY)
			continue;
		n = &t->nodes[old.slots[i]];
		j = hash_pair((uint32_t)n->parent, n->function) & t->by_parent.mask;
		while (t->by_parent.slots[j] != EMPTY)
			j = (j + 1) & t->by_parent.mask;
		t->by_parent.slots[j] = old.slots[i];
	}
	t->by_parent.count = old.count;
	index_free(&old);
	return 0;
}

/* The child of parent (-1 for a root) calling function, created if new. */
static int
child_node(struct flame_tree *t, int32_t parent, uint32_t function, uint32_t *id)
{
	size_t		j = hash_pair((uint32_t)parent, function) & t->by_parent.mask;
	uint32_t	k;
	struct flame_node *n;

	while ((k = t->by_parent.slots[j]) != EMPTY) {
		if (t->nodes[k].parent == parent && t->nodes[k].function == function) {
			*id = k;
			return 0;
		}
		j = (j + 1) & t->by_parent.mask;
	}
	if (t->nnodes >= INT32_MAX ||
	    grow((void **)&t->nodes, &t->nodes_cap, t->nnodes + 1, sizeof(*n)) < 0)
		return -ENOMEM;
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	n->function = function;
	n->parent = parent;
	*id = (uint32_t)t->nnodes++;
	t->by_parent.slots[j] = *id;
	if (++t->by_parent.count * 2 > t->by_parent.mask + 1)
		return by_parent_grow(t);
	return 0;
}

struct flame_tree *
flame_tree_new(void)
{
	struct flame_tree	*t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	if (index_init(&t->by_name, 1024) < 0 || index_init(&t->by_parent, 4096) < 0) {
		flame_tree_free(t);
		return NULL;
	}
	return t;
}

void
flame_tree_free(struct flame_tree *t)
{
	struct arena_chunk	*c, *next;

	if (t == NULL)
		return;
	for (c = t->arena; c; c = next) {
		next = c->next;
		free(c);
	}
	index_free(&t->by_name);
	index_free(&t->by_parent);
	free(t->function_hash);
	free(t->functions);
	free(t->nodes);
	free(t);
}

int
flame_tree_add(struct flame_tree *t, const char *const *path, size_t n,
	       uint64_t samples, uint64_t value_us)
{
	int32_t		parent = -1;
	uint32_t	fid, nid = 0;
	size_t		i;
	int		sts;

	if (t->finished || n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (path[i] == NULL)
			return -EINVAL;
	for (i = 0; i < n; i++) {
		if ((sts = intern_function(t, path[i], i == 0, &fid)) < 0)
			return sts;
		if ((sts = child_node(t, parent, fid, &nid)) < 0)
			return sts;
		parent = (int32_t)nid;
	}
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

/* The indexes serve only flame_tree_add(); finishing frees them first. */
void
flame_tree_drop_indexes(struct flame_tree *t)
{
	index_free(&t->by_name);
	index_free(&t->by_parent);
	free(t->function_hash);
	t->function_hash = NULL;
	t->function_hash_cap = 0;
}
