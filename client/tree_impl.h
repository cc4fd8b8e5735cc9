/*
 * tree_impl.h - the inside of struct flame_tree, shared by tree.c (adding
 * stacks) and tree_finish.c (sorting, numbering, totals).  Not for emitters:
 * they use the accessors in tree.h.
 */
#ifndef TREE_IMPL_H
#define TREE_IMPL_H

#include "tree.h"

#define EMPTY		UINT32_MAX
#define ARENA_CHUNK	(64 * 1024)

struct arena_chunk {
	struct arena_chunk	*next;
	size_t			used, size;
	char			data[];
};

struct index_table {		/* open addressing over uint32 indices */
	uint32_t	*slots;
	size_t		mask;		/* size - 1, size a power of two */
	size_t		count;
};

struct flame_tree {
	struct flame_node	*nodes;
	size_t			nnodes, nodes_cap;
	struct flame_function	*functions;
	uint32_t		*function_hash;	/* name hash per function, build time */
	size_t			function_hash_cap;
	size_t			nfunctions, functions_cap;
	struct index_table	by_name;	/* function ids by (name, type) */
	struct index_table	by_parent;	/* node ids by (parent, function) */
	struct arena_chunk	*arena;
	uint32_t		max_depth;
	int			finished;
};

void flame_tree_drop_indexes(struct flame_tree *t);

#endif /* TREE_IMPL_H */
