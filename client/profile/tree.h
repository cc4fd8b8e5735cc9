/*
 * tree.h - the function/node tree of a profile, shaped like DeepFlow's
 * ProfileTracing result: a list of distinct functions (name + type letter)
 * and a list of nodes, each naming its function and its parent node.
 *
 * Stacks are added root first (path[0] is the process name or "Total").
 * After flame_tree_finish() the nodes are numbered in pre-order with
 * children sorted by function (name, type), and a walk hands them out in
 * that order, so every emitter sees the same, deterministic tree whatever
 * order the stacks came in.
 *
 * Nodes are not stored one by one: a profile of 100k random stacks has
 * 3 M of them.  The tree keeps its distinct stacks (a function id per
 * frame), sorted; a walk derives each node, its parent and its totals
 * from them as it goes (docs/design.md, "pmflame": Tree).
 */
#ifndef TREE_H
#define TREE_H

#include <stddef.h>
#include <stdint.h>
#include "common/sample.h"

/* One node, as a walk hands it out. */
struct flame_node {
	uint32_t	id;		/* pre-order number, 0 .. nnodes-1 */
	uint32_t	function;	/* index into the functions */
	int32_t		parent;		/* node id, -1 for a root */
	uint32_t	depth;		/* a root is 0 */
	uint64_t	self_samples, total_samples;
	uint64_t	self_us, total_us;	/* microseconds, DeepFlow's unit */
	/* a differential tree's baseline (flame_tree_add_baseline), else 0 */
	uint64_t	base_self_samples, base_total_samples;
	uint64_t	base_self_us, base_total_us;
};

struct flame_function {
	const char	*name;
	char		type;		/* H P T K C L ? A O, see function_type() */
	uint64_t	self_samples, total_samples;	/* over all its nodes */
	uint64_t	self_us, total_us;	/* total counts recursion once */
	uint64_t	base_self_us, base_total_us;	/* the baseline's */
};

struct flame_tree;

struct flame_tree *flame_tree_new(void);
void flame_tree_free(struct flame_tree *t);

/*
 * Add one stack; path[0] is the root.  Different roots make a forest.
 * Adding a stack again adds its values.  Returns 0, -EINVAL (n == 0, a
 * NULL name, or the tree is finished) or -ENOMEM (nothing added).
 */
int flame_tree_add(struct flame_tree *t, const char *const *path, size_t n,
		   uint64_t samples, uint64_t value_us);
/*
 * A differential tree: add a stack of the baseline (the profile compared
 * against) to its second column of values.  A stack of either side is a
 * node of the tree; one of the baseline only has totals of 0.  Returns
 * as flame_tree_add.
 */
int flame_tree_add_baseline(struct flame_tree *t, const char *const *path, size_t n,
			    uint64_t samples, uint64_t value_us);
/*
 * The same two with each name's length given (lens[i] is strlen(path[i])):
 * a source that split the stack knows them, and the tree would otherwise
 * measure every name it looks up.
 */
int flame_tree_add_n(struct flame_tree *t, const char *const *path, const size_t *lens,
		     size_t n, uint64_t samples, uint64_t value_us);
int flame_tree_add_baseline_n(struct flame_tree *t, const char *const *path,
			      const size_t *lens, size_t n, uint64_t samples, uint64_t value_us);
/*
 * Add path[0 .. n) (the root layers), then the frames a source split and
 * hashed (sample.h), to the values or (if baseline) to the baseline;
 * returns as flame_tree_add.  A Python frame's ":line" is cut unless
 * lines (py_frame.h), as stack_path_split does.
 */
int flame_tree_add_framed(struct flame_tree *t, const char *const *path, const size_t *lens,
			  size_t n, const struct stack_frames *frames, int lines,
			  uint64_t samples, uint64_t value_us, int baseline);
/* Whether the tree has a baseline column (any flame_tree_add_baseline). */
int flame_tree_has_baseline(const struct flame_tree *t);
/*
 * At finish, scale each baseline stack by (current total / baseline
 * total), rounding down as difffolded.pl -n does, so both sides weigh
 * the same.  Call before finishing.
 */
void flame_tree_normalize_baseline(struct flame_tree *t, int on);
/*
 * Memory profiles (DeepFlow's mem-* events): type every stack's last frame
 * 'O' (the allocated object) instead of by its name.  Call before adding.
 */
void flame_tree_set_object_leaves(struct flame_tree *t, int on);

/* Sort, number and total the tree; no flame_tree_add() afterwards.
 * Returns 0, -EINVAL if already finished, or -ENOMEM. */
int flame_tree_finish(struct flame_tree *t);

/* Of a finished tree: */
size_t flame_tree_nnodes(const struct flame_tree *t);
size_t flame_tree_nroots(const struct flame_tree *t);
/* The sums over every root (all the samples and microseconds added). */
uint64_t flame_tree_total_samples(const struct flame_tree *t);
uint64_t flame_tree_total_us(const struct flame_tree *t);
uint64_t flame_tree_base_total_samples(const struct flame_tree *t);
uint64_t flame_tree_base_total_us(const struct flame_tree *t);
size_t flame_tree_nfunctions(const struct flame_tree *t);
const struct flame_function *flame_tree_function(const struct flame_tree *t, size_t i);
uint32_t flame_tree_max_depth(const struct flame_tree *t);

/*
 * The nodes of a finished tree in pre-order:
 *
 *	struct flame_walk *w = flame_walk_new(t);
 *	const struct flame_node *x;
 *	if (w == NULL) return -ENOMEM;
 *	while ((x = flame_walk_next(w)) != NULL) ...
 *	flame_walk_free(w);
 *
 * A node's parent has been handed out before it (its id is smaller).  The
 * node returned is valid until the next call.  Walks of one tree are
 * independent of each other.
 */
struct flame_walk;

struct flame_walk *flame_walk_new(const struct flame_tree *t);
const struct flame_node *flame_walk_next(struct flame_walk *w);
/* Make w (new) walk only the nodes with ids [from, to), each as the whole
 * walk gives it: a part of a walk split among threads, worth it from
 * FLAME_WALK_SPLIT nodes (about 1 ms of walking; a thread's start and
 * join take about 50 µs here). */
#define FLAME_WALK_SPLIT	(64 * 1024)
void flame_walk_part(struct flame_walk *w, size_t from, size_t to);
/* The functions of the nodes above the next one w hands out, root first,
 * into functions (room for max depth + 1); their count. */
size_t flame_walk_above(const struct flame_walk *w, uint32_t *functions);
void flame_walk_free(struct flame_walk *w);

/* DeepFlow's function type from a frame name; is_root marks path[0]. */
char function_type(const char *name, int is_root);
/* The same for the first len bytes of name. */
char function_type_n(const char *name, size_t len, int is_root);

#endif /* TREE_H */
