/*
 * tree.h - the function/node tree of a profile, shaped like DeepFlow's
 * ProfileTracing result: a list of distinct functions (name + type letter)
 * and a list of nodes, each naming its function and its parent node.
 *
 * Stacks are added root first (path[0] is the process name or "Total").
 * After flame_tree_finish() the nodes are in pre-order with children sorted
 * by function name, so every emitter walks the same, deterministic order.
 */
#ifndef TREE_H
#define TREE_H

#include <stddef.h>
#include <stdint.h>

struct flame_node {
	uint32_t	function;	/* index into functions[] */
	int32_t		parent;		/* node index, -1 for the root */
	uint32_t	first_child;	/* node index, 0 = none (root is never a child) */
	uint32_t	next_sibling;	/* node index, 0 = none */
	uint32_t	depth;		/* root is 0 */
	uint64_t	self_samples, total_samples;
	uint64_t	self_us, total_us;	/* microseconds, DeepFlow's unit */
};

struct flame_function {
	const char	*name;
	char		type;		/* H P T K C L ? A O, see function_type() */
	uint64_t	self_samples, total_samples;	/* over all its nodes */
	uint64_t	self_us, total_us;	/* total counts recursion once */
};

struct flame_tree;

struct flame_tree *flame_tree_new(void);
void flame_tree_free(struct flame_tree *t);

/*
 * Add one stack; path[0] is the root.  Different roots make a forest (each
 * root has parent -1; roots are linked through next_sibling).  Returns 0,
 * -EINVAL (n == 0, a NULL name, or the tree is finished) or -ENOMEM.
 */
int flame_tree_add(struct flame_tree *t, const char *const *path, size_t n,
		   uint64_t samples, uint64_t value_us);
/*
 * Memory profiles (DeepFlow's mem-* events): type every stack's last frame
 * 'O' (the allocated object) instead of by its name.  Call before adding.
 */
void flame_tree_set_object_leaves(struct flame_tree *t, int on);

/* Sort, number and total the tree; no flame_tree_add() afterwards.
 * Returns 0, -EINVAL if already finished, or -ENOMEM. */
int flame_tree_finish(struct flame_tree *t);

size_t flame_tree_nnodes(const struct flame_tree *t);
const struct flame_node *flame_tree_node(const struct flame_tree *t, size_t i);
size_t flame_tree_nfunctions(const struct flame_tree *t);
const struct flame_function *flame_tree_function(const struct flame_tree *t, size_t i);
uint32_t flame_tree_max_depth(const struct flame_tree *t);

/* DeepFlow's function type from a frame name; is_root marks path[0]. */
char function_type(const char *name, int is_root);
/* The same for the first len bytes of name. */
char function_type_n(const char *name, size_t len, int is_root);

#endif /* TREE_H */
