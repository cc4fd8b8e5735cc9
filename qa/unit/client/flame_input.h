/*
 * flame_input.h - build a flame_tree from hand-written folded text in the
 * unit tests ("a;b;c 5" per line, value 10000 us per sample, as at 100 Hz).
 * Deliberately independent of pmflame's own folded parser.
 */
#ifndef FLAME_INPUT_H
#define FLAME_INPUT_H

#include <stdlib.h>
#include <string.h>
#include "profile/tree.h"

#define US_PER_SAMPLE	10000

/* Add every line of text to t; returns the number of lines added. */
static inline int
add_folded(struct flame_tree *t, const char *text)
{
	char		*copy = strdup(text), *line, *save = NULL, *sp, *p;
	const char	*path[256];
	size_t		n;
	int		added = 0;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long count;

		if ((sp = strrchr(line, ' ')) == NULL)
			continue;
		*sp = '\0';
		count = strtoull(sp + 1, NULL, 10);
		for (n = 0, p = line; n < 256; p++) {
			path[n++] = p;
			if ((p = strchr(p, ';')) == NULL)
				break;
			*p = '\0';
		}
		if (flame_tree_add(t, path, n, count, count * US_PER_SAMPLE) == 0)
			added++;
	}
	free(copy);
	return added;
}

/* A finished tree from folded text (NULL if anything failed). */
static inline struct flame_tree *
tree_from(const char *text)
{
	struct flame_tree *t = flame_tree_new();

	if (t == NULL)
		return NULL;
	add_folded(t, text);
	if (flame_tree_finish(t) != 0) {
		flame_tree_free(t);
		return NULL;
	}
	return t;
}

/*
 * Node i of a finished tree, by walking to it (tests only: a walk is the
 * tree's one way to its nodes).  NULL past the end.  The copy returned
 * lives in a ring of four, so a test may hold a few at once.
 */
static inline const struct flame_node *
tree_node(const struct flame_tree *t, size_t i)
{
	static struct flame_node	ring[4];
	static unsigned			next;
	struct flame_walk		*w = flame_walk_new(t);
	const struct flame_node		*x = NULL;

	while (w != NULL && (x = flame_walk_next(w)) != NULL && x->id != i)
		;
	if (x != NULL) {
		ring[next % 4] = *x;
		x = &ring[next++ % 4];
	}
	flame_walk_free(w);
	return x;
}

#endif /* FLAME_INPUT_H */
