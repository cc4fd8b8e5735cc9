/*
 * tree_impl.h - the inside of struct flame_tree, shared by tree.c (adding
 * stacks), tree_index.c (function names and whole stacks, while adding),
 * tree_finish.c (sorting, numbering, totals) and tree_walk.c (the nodes).
 * Emitters use tree.h only.
 *
 * The tree is its distinct stacks: frames[] holds each stack's function
 * ids back to back, stacks[] where each starts and what it weighs.  Once
 * finished, stacks[] is sorted by the (name, type) order of their frames,
 * so the nodes in pre-order are, stack by stack, the frames that a stack
 * does not share with the one before it (from depth lcp on); frames[]
 * then holds just those, in that order: the function of each node, by
 * node id.
 */
#ifndef TREE_IMPL_H
#define TREE_IMPL_H

#include "lib/hash.h"
#include "lib/intern.h"
#include "tree.h"

#define NO_INDEX	UINT32_MAX

struct tree_stack {
	size_t		first;		/* its frames are frames[first .. first + len);
					 * finished: its own, frames[first .. + len - lcp) */
	uint32_t	len;
	uint32_t	lcp;		/* finished: frames shared with the stack before */
	uint64_t	samples, us;	/* the stack's own (self) values */
	uint64_t	key;		/* finishing: its first frames' ranks, packed */
	uint32_t	id;		/* order of adding: its index in base[] */
};

struct tree_values {
	uint64_t	samples, us;
};

struct flame_tree {
	uint32_t		*frames;	/* function ids, stack after stack;
						 * finished: by node id */
	size_t			nframes, frames_cap;
	struct tree_stack	*stacks;
	size_t			nstacks, stacks_cap;
	struct tree_values	*base;		/* baseline values by stack id, or NULL */
	size_t			base_cap;
	struct flame_function	*functions;
	size_t			nfunctions, functions_cap;
	struct intern		names;		/* (name, type) -> function id; the names */
	struct hash_table	stack_index;	/* the stack's frames -> stacks[]; build time */

	/* the previous stack, whose prefix the next one often shares */
	struct last_frame {
		const char	*name;		/* interned */
		size_t		len;
		uint32_t	function;
	}			*last;
	size_t			last_len, last_cap;
	size_t			*len_buf;	/* names' lengths, for callers without */
	size_t			len_cap;
	char			*cut_buf;	/* a split frame's text, its line cut */
	size_t			cut_cap;

	/* finished: */
	uint64_t		*cum_samples;	/* values of stacks [0, k), k = 0 .. nstacks */
	uint64_t		*cum_us;
	uint64_t		*cum_base_samples;	/* the same of base[], if any */
	uint64_t		*cum_base_us;
	uint32_t		*next_lower;	/* first later stack with a smaller lcp */
	size_t			nnodes, nroots;
	uint32_t		max_depth;
	int			object_leaves;	/* last frame of a stack is 'O' */
	int			normalize;	/* scale base[] to the current total */
	int			finished;
};

int tree_index_init(struct flame_tree *t);
void tree_index_free(struct flame_tree *t);
int tree_intern_function(struct flame_tree *t, const char *name, size_t len, char type,
			 uint32_t *id);
/* The same, hash being hash_bytes(name, len) */
int tree_intern_hashed(struct flame_tree *t, const char *name, size_t len, char type,
		       uint64_t hash, uint32_t *id);
/* Keep the stack whose n function ids were written at frames[nframes ..]
 * (room reserved), or add its values to the equal stack kept before. */
int tree_commit_stack(struct flame_tree *t, size_t n, const struct tree_values *v,
		      int baseline);

#endif /* TREE_IMPL_H */
