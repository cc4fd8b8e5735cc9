/*
 * tree_index.c - the two hash indexes used while stacks are added: function
 * names (interned once in an arena) and children by (parent, function).
 * Both are open addressing with linear probing: names at most half full,
 * children at most 3/4 (its slots are most of the build-time memory).
 * A root's parent is NO_INDEX.  Both are freed before finishing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tree_impl.h"

#define ARENA_CHUNK	(64 * 1024)

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

int
tree_grow(void **array, size_t *cap, size_t need, size_t elem)
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

/* Slots hold id + 1, so that zeroed memory (calloc: fresh pages, no
 * memset) is an empty table. */
static void *
empty_slots(size_t n, size_t size)
{
	return calloc(n, size);
}

int
tree_index_init(struct flame_tree *t)
{
	t->names_mask = 1023;
	t->children_mask = 4095;
	t->names = empty_slots(t->names_mask + 1, sizeof(*t->names));
	t->children = empty_slots(t->children_mask + 1, sizeof(*t->children));
	return t->names && t->children ? 0 : -ENOMEM;
}

void
tree_index_free(struct flame_tree *t)
{
	free(t->names);
	free(t->children);
	t->names = NULL;
	t->children = NULL;
	t->names_mask = t->children_mask = 0;
}

/* ---- function names --------------------------------------------------- */

static int
names_grow(struct flame_tree *t)
{
	size_t			size = (t->names_mask + 1) * 2, i, j;
	struct name_slot	*slots = empty_slots(size, sizeof(*slots));

	if (slots == NULL)
		return -ENOMEM;
	for (i = 0; i <= t->names_mask; i++) {
		if (t->names[i].id == 0)
			continue;
		for (j = t->names[i].hash & (size - 1); slots[j].id != 0; j = (j + 1) & (size - 1))
			;
		slots[j] = t->names[i];
	}
	free(t->names);
	t->names = slots;
	t->names_mask = size - 1;
	return 0;
}

static int
new_function(struct flame_tree *t, const char *name, char type, uint32_t *id)
{
	struct flame_function	*f;

	if (tree_grow((void **)&t->functions, &t->functions_cap, t->nfunctions + 1,
		      sizeof(*f)) < 0)
		return -ENOMEM;
	f = &t->functions[t->nfunctions];
	memset(f, 0, sizeof(*f));
	if ((f->name = arena_strdup(t, name)) == NULL)
		return -ENOMEM;
	f->type = type;
	*id = (uint32_t)t->nfunctions++;
	return 0;
}

int
tree_intern_function(struct flame_tree *t, const char *name, char type, uint32_t *id)
{
	uint32_t		h = hash_name(name, type);
	size_t			j = h & t->names_mask;
	struct name_slot	*s;

	for (; (s = &t->names[j])->id != 0; j = (j + 1) & t->names_mask) {
		const struct flame_function *f = &t->functions[s->id - 1];

		if (s->hash == h && f->type == type && strcmp(f->name, name) == 0) {
			*id = s->id - 1;
			return 0;
		}
	}
	if (new_function(t, name, type, id) < 0)
		return -ENOMEM;
	s->id = *id + 1;
	s->hash = h;
	if (++t->names_count * 2 > t->names_mask + 1)
		return names_grow(t);
	return 0;
}

/* ---- children --------------------------------------------------------- */

static int
children_grow(struct flame_tree *t)
{
	size_t			size = (t->children_mask + 1) * 2, i, j;
	struct child_slot	*slots = empty_slots(size, sizeof(*slots));
	const struct child_slot	*s;

	if (slots == NULL)
		return -ENOMEM;
	for (i = 0; i <= t->children_mask; i++) {
		if ((s = &t->children[i])->node == 0)
			continue;
		j = hash_pair(s->parent, s->function) & (size - 1);
		while (slots[j].node != 0)
			j = (j + 1) & (size - 1);
		slots[j] = *s;
	}
	free(t->children);
	t->children = slots;
	t->children_mask = size - 1;
	return 0;
}

/* The child of parent (NO_INDEX for a root) calling function, created if new. */
int
tree_child_node(struct flame_tree *t, uint32_t parent, uint32_t function, uint32_t *id)
{
	size_t			j = hash_pair(parent, function) & t->children_mask;
	struct child_slot	*s;
	struct flame_node	*n;

	for (; (s = &t->children[j])->node != 0; j = (j + 1) & t->children_mask) {
		if (s->parent == parent && s->function == function) {
			*id = s->node - 1;
			return 0;
		}
	}
	if (t->nnodes >= INT32_MAX ||
	    tree_grow((void **)&t->nodes, &t->nodes_cap, t->nnodes + 1, sizeof(*n)) < 0)
		return -ENOMEM;
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	n->function = function;
	n->parent = parent == NO_INDEX ? -1 : (int32_t)parent;
	*id = (uint32_t)t->nnodes++;
	s->parent = parent;
	s->function = function;
	s->node = *id + 1;
	if (++t->children_count * 4 > (t->children_mask + 1) * 3)
		return children_grow(t);
	return 0;
}
