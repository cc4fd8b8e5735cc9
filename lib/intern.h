/*
 * intern.h - each distinct (name, tag) stored once and numbered 0, 1, 2...
 * in order of first appearance: the function names of a flame tree and the
 * frame names of a heat map (the tag is the DeepFlow type letter, so the
 * same text as a process and as a function is two entries).  Names live in
 * an arena until intern_free().
 */
#ifndef LIB_INTERN_H
#define LIB_INTERN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "hash.h"

struct intern_chunk;

struct intern_entry {
	const char	*name;		/* in the arena, NUL-terminated */
	uint32_t	len;
	char		tag;
};

struct intern {
	struct hash_table	index;		/* hash of (tag, name) -> id */
	struct intern_entry	*entries;	/* by id */
	size_t			count, cap;
	struct intern_chunk	*arena;
};

int intern_init(struct intern *in);
void intern_free(struct intern *in);

/* intern_put's slow path: add name at slot s, where the search for key ended. */
int intern_add(struct intern *in, const char *name, size_t len, char tag, uint64_t key,
	       struct hash_slot *s, uint32_t *id);

/*
 * The id of the first len bytes of name with tag, added if new (then id is
 * the previous count), hash being hash_bytes(name, len), which a caller
 * may have had computed elsewhere.  0 or -ENOMEM (nothing added).  Inline:
 * the flame tree looks a name up for every frame it has not seen above.
 */
static inline int
intern_put_hashed(struct intern *in, const char *name, size_t len, char tag, uint64_t hash,
		  uint32_t *id)
{
	uint64_t		key = hash ^ (uint64_t)(unsigned char)tag << 56;
	struct hash_slot	*s;

	for (s = hash_table_find(&in->index, key); !hash_slot_empty(s);
	     s = hash_table_next(&in->index, key, s)) {
		const struct intern_entry *e = &in->entries[hash_slot_value(s)];

		if (e->len == len && e->tag == tag && memcmp(e->name, name, len) == 0) {
			*id = hash_slot_value(s);
			return 0;
		}
	}
	return intern_add(in, name, len, tag, key, s, id);
}

static inline int
intern_put(struct intern *in, const char *name, size_t len, char tag, uint32_t *id)
{
	return intern_put_hashed(in, name, len, tag, hash_bytes(name, len), id);
}

/* Done adding: free the index and the id table; names stay valid. */
void intern_seal(struct intern *in);

static inline const char *
intern_name(const struct intern *in, uint32_t id)
{
	return in->entries[id].name;
}

static inline char
intern_tag(const struct intern *in, uint32_t id)
{
	return in->entries[id].tag;
}

#endif /* LIB_INTERN_H */
