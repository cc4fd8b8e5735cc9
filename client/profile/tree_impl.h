/*
 * tree_impl.h - the inside of struct flame_tree, shared by tree.c (adding
 * stacks), tree_index.c (finding functions and nodes while adding) and
 * tree_finish.c (sorting, numbering, totals).  Emitters use tree.h only.
 */
#ifndef TREE_IMPL_H
#define TREE_IMPL_H

#include "common/hash.h"
#include "common/intern.h"
#include "tree.h"

#define NO_INDEX	UINT32_MAX

struct flame_tree {
	struct flame_node	*nodes;
	size_t			nnodes, nodes_cap;
	struct flame_function	*functions;
	size_t			nfunctions, functions_cap;
	struct intern		names;		/* (name, type) -> function id; the names */
	struct hash_table	children;	/* (parent, function) -> node; build time only */

	/* the previous stack, whose prefix the next one often shares */
	struct last_frame {
		const char	*name;		/* interned */
		uint32_t	node;
	}			*last;
	size_t			last_len, last_cap;

	uint32_t		max_depth;
	int			object_leaves;	/* last frame of a stack is 'O' */
	int			finished;
};

int tree_index_init(struct flame_tree *t);
void tree_index_free(struct flame_tree *t);
int tree_intern_function(struct flame_tree *t, const char *name, char type, uint32_t *id);
int tree_child_node(struct flame_tree *t, uint32_t parent, uint32_t function, uint32_t *id);

#endif /* TREE_IMPL_H */
