/*
 * tree_index.c - the two indexes used while stacks are added: function
 * names, interned once with their type (common/intern.h), and children by
 * (parent, function) in a hash table whose slots hold that pair as the key,
 * so a probe never touches the large, cold node array.  A root's parent is
 * NO_INDEX.  Both indexes are freed before finishing; the names stay.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/array.h"
#include "tree_impl.h"

int
tree_index_init(struct flame_tree *t)
{
	int	sts;

	if ((sts = intern_init(&t->names)) < 0)
		return sts;
	return hash_table_init(&t->children, 3000);
}

void
tree_index_free(struct flame_tree *t)
{
	intern_seal(&t->names);
	hash_table_free(&t->children);
}

int
tree_intern_function(struct flame_tree *t, const char *name, char type, uint32_t *id)
{
	struct flame_function	*f;

	/* room first: a name interned is a function, so their ids agree */
	if (array_reserve(&t->functions, &t->functions_cap, t->nfunctions + 1) < 0 ||
	    intern_put(&t->names, name, strlen(name), type, id) < 0)
		return -ENOMEM;
	if (*id < t->nfunctions)
		return 0;
	f = &t->functions[t->nfunctions++];
	memset(f, 0, sizeof(*f));
	f->name = intern_name(&t->names, *id);
	f->type = type;
	return 0;
}

/* The child of parent (NO_INDEX for a root) calling function, created if new. */
int
tree_child_node(struct flame_tree *t, uint32_t parent, uint32_t function, uint32_t *id)
{
	uint64_t		key = hash_mix((uint64_t)parent << 32 | function);
	struct hash_slot	*s = hash_table_find(&t->children, key);
	struct flame_node	*n;

	if (!hash_slot_empty(s)) {
		*id = hash_slot_value(s);
		return 0;
	}
	if (t->nnodes >= INT32_MAX ||
	    array_reserve(&t->nodes, &t->nodes_cap, t->nnodes + 1) < 0 ||
	    hash_table_insert(&t->children, s, key, (uint32_t)t->nnodes) < 0)
		return -ENOMEM;
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	n->function = function;
	n->parent = parent == NO_INDEX ? -1 : (int32_t)parent;
	*id = (uint32_t)t->nnodes++;
	return 0;
}
