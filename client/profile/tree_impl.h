/*
 * tree_impl.h - the inside of struct flame_tree, shared by tree.c (adding
 * stacks), tree_index.c (finding functions and nodes while adding) and
 * tree_finish.c (sorting, numbering, totals).  Emitters use tree.h only.
 */
#ifndef TREE_IMPL_H
#define TREE_IMPL_H

#include "tree.h"

#define NO_INDEX	UINT32_MAX

struct arena_chunk {
	struct arena_chunk	*next;
	size_t			used, size;
	char			data[];
};

/* Function ids by (name, type): slots hold id + 1 (0 = empty) and the
 * name's hash, so a probe touches the function only when hashes agree. */
struct name_slot {
	uint32_t	id, hash;
};

/* Node ids by (parent, function): slots hold the key and node id + 1
 * (0 = empty), so a probe never touches the large, cold node array. */
struct child_slot {
	uint32_t	parent, function, node;
};

struct flame_tree {
	struct flame_node	*nodes;
	size_t			nnodes, nodes_cap;
	struct flame_function	*functions;
	size_t			nfunctions, functions_cap;
	struct arena_chunk	*arena;		/* function names, one copy each */

	struct name_slot	*names;		/* build time only */
	size_t			names_mask, names_count;
	struct child_slot	*children;	/* build time only */
	size_t			children_mask, children_count;

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
int tree_grow(void **array, size_t *cap, size_t need, size_t elem);

#endif /* TREE_IMPL_H */
