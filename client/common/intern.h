/*
 * intern.h - each distinct (name, tag) stored once and numbered 0, 1, 2...
 * in order of first appearance: the function names of a flame tree and the
 * frame names of a heat map (the tag is the DeepFlow type letter, so the
 * same text as a process and as a function is two entries).  Names live in
 * an arena until intern_free().
 */
#ifndef INTERN_H
#define INTERN_H

#include <stddef.h>
#include <stdint.h>
#include "hash.h"

struct intern_chunk;

struct intern {
	struct hash_table	index;		/* hash of (tag, name) -> id */
	char			**entries;	/* by id: the tag byte, then the name */
	size_t			count, cap;
	struct intern_chunk	*arena;
};

int intern_init(struct intern *in);
void intern_free(struct intern *in);

/*
 * The id of the first len bytes of name with tag, added if new (then id is
 * the previous count).  0 or -ENOMEM (nothing added).
 */
int intern_put(struct intern *in, const char *name, size_t len, char tag, uint32_t *id);

/* Done adding: free the index and the id table; names stay valid. */
void intern_seal(struct intern *in);

static inline const char *
intern_name(const struct intern *in, uint32_t id)
{
	return in->entries[id] + 1;
}

static inline char
intern_tag(const struct intern *in, uint32_t id)
{
	return in->entries[id][0];
}

#endif /* INTERN_H */
