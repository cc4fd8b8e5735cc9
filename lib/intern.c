/*
 * intern.c - names stored once: a hash index over an arena (see intern.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "intern.h"

#define CHUNK	(64 * 1024)

struct intern_chunk {
	struct intern_chunk	*next;
	size_t			used, size;
	char			data[];
};

int
intern_init(struct intern *in)
{
	memset(in, 0, sizeof(*in));
	return hash_table_init(&in->index, 0);
}

void
intern_seal(struct intern *in)
{
	hash_table_free(&in->index);
	free(in->entries);
	in->entries = NULL;
	in->cap = 0;
}

void
intern_free(struct intern *in)
{
	struct intern_chunk	*c, *next;

	intern_seal(in);
	for (c = in->arena; c; c = next) {
		next = c->next;
		free(c);
	}
	memset(in, 0, sizeof(*in));
}

/* Room for n bytes in the arena. */
static char *
arena_alloc(struct intern *in, size_t n)
{
	struct intern_chunk	*c = in->arena;

	if (c == NULL || c->size - c->used < n) {
		size_t	size = n > CHUNK ? n : CHUNK;

		if ((c = malloc(sizeof(*c) + size)) == NULL)
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = in->arena;
		in->arena = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

int
intern_add(struct intern *in, const char *name, size_t len, char tag, uint64_t key,
	   struct hash_slot *s, uint32_t *id)
{
	char	*e;

	if (in->count >= UINT32_MAX - 1 || len >= UINT32_MAX ||
	    array_reserve(&in->entries, &in->cap, in->count + 1) < 0 ||
	    (e = arena_alloc(in, len + 1)) == NULL)
		return -ENOMEM;
	memcpy(e, name, len);
	e[len] = '\0';
	if (hash_table_insert(&in->index, s, key, (uint32_t)in->count) < 0)
		return -ENOMEM;		/* the arena keeps the bytes until freed */
	in->entries[in->count] = (struct intern_entry){ e, (uint32_t)len, tag };
	*id = (uint32_t)in->count++;
	return 0;
}
