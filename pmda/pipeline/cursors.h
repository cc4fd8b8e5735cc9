/*
 * cursors.h - where each client context is in a numbered queue: the event
 * queue's records and the history's drains are numbered as appended, and
 * each client keeps the next number it has to see, so it sees each one
 * once whatever its fetch interval, and an item can be freed once every
 * active client has passed it.
 */
#ifndef CURSORS_H
#define CURSORS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct cursor {
	bool		active;		/* fetched since it started, not ended */
	int		slot;		/* the history's definition slot, or -1 */
	uint64_t	next_seq;	/* first item this client has not seen */
	bool		keyed;		/* the history's: a keyframe was sent, */
	time_t		keyed_at;	/* its newest drain's second (wall clock) */
};

struct cursors {
	struct cursor	*v;		/* indexed by client context */
	int		n;
};

/* The cursor of context (grown, zeroed, when create); NULL for a negative
 * context, one never seen without create, or out of memory. */
struct cursor *cursors_get(struct cursors *cs, int context, bool create);
/* The oldest number an active client still has to see (next_seq if none). */
uint64_t cursors_oldest(const struct cursors *cs, uint64_t next_seq);
/* Active clients. */
unsigned cursors_active(const struct cursors *cs);
void cursors_free(struct cursors *cs);

#endif /* CURSORS_H */
