/*
 * cursors.c - clients' places in a numbered queue (see cursors.h).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cursors.h"
#include "lib/array.h"

struct cursor *
cursors_get(struct cursors *cs, int context, bool create)
{
	if (context < 0)
		return NULL;
	if (context >= cs->n) {
		size_t	cap = (size_t)cs->n;	/* every slot allocated is zeroed, so in use */

		if (!create || array_reserve(&cs->v, &cap, (size_t)context + 1) < 0 || cap > INT_MAX)
			return NULL;
		memset(cs->v + cs->n, 0, (cap - (size_t)cs->n) * sizeof(*cs->v));
		cs->n = (int)cap;
	}
	return &cs->v[context];
}

uint64_t
cursors_oldest(const struct cursors *cs, uint64_t next_seq)
{
	uint64_t	oldest = next_seq;
	int		i;

	for (i = 0; i < cs->n; i++)
		if (cs->v[i].active && cs->v[i].next_seq < oldest)
			oldest = cs->v[i].next_seq;
	return oldest;
}

unsigned
cursors_active(const struct cursors *cs)
{
	unsigned	n = 0;
	int		i;

	for (i = 0; i < cs->n; i++)
		n += cs->v[i].active;
	return n;
}

void
cursors_free(struct cursors *cs)
{
	free(cs->v);
	cs->v = NULL;
	cs->n = 0;
}
