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
static int
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
static struct flame_tree *
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

#endif /* FLAME_INPUT_H */
