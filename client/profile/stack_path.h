/*
 * stack_path.h - a stack_sample as the root-first path that a flame tree
 * or a heat map adds: the root layers (stack_root), "[t] thread" when the
 * record names its thread, then the non-empty frames of its stack, a
 * Python frame's ":line" cut unless lines is set (py_frame.h).
 */
#ifndef STACK_PATH_H
#define STACK_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include "common/sample.h"

/* What a path starts with. */
enum stack_root {
	ROOT_PROCESS,		/* process;... */
	ROOT_HOST,		/* Total;[p] process;... (host view) */
	ROOT_FLEET,		/* Total;[h] host;[p] process;... (fleet view) */
};

struct stack_path {
	const char	**v;		/* the path: v[0 .. n) */
	size_t		*len;		/* strlen of each */
	size_t		n, cap, len_cap;
	char		*buf;		/* the names, reused from sample to sample */
	size_t		buflen;
	bool		lines;		/* keep Python frames' lines (pmflame --lines) */
};

/* Split s under root.  0 or -ENOMEM.  The path points into p and into s:
 * valid until the next split or s goes. */
int stack_path_split(struct stack_path *p, const struct stack_sample *s, enum stack_root root);
/* The root layers of s alone, for a sample whose source split its frames
 * (stack_sample's frames). */
int stack_path_layers(struct stack_path *p, const struct stack_sample *s, enum stack_root root);
void stack_path_free(struct stack_path *p);

#endif /* STACK_PATH_H */
