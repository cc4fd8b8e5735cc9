/*
 * hash_chain.h - a chained hash table of entries that live elsewhere.
 *
 * hash.h's table maps keys to indexes into the caller's arrays and never
 * forgets one: the shape of names interned for a run.  The PMDA's
 * dictionaries (history entries, a window's processes, the unwinder's
 * files and processes) hold entries that are allocated one by one,
 * pointed at from elsewhere (so they may not move) and removed one by one
 * as processes exit and entries age.  Such an entry embeds a struct
 * hash_link; the table links it in and out without allocating, and grows
 * its buckets as it fills (keeping the old ones if memory is short).
 *
 *	for (l = hash_chain_first(t, h); l; l = hash_chain_next(l))
 *		if (same(hash_chain_entry(l, struct x, link), key))
 *			return ...;
 *	hash_chain_add(t, &x->link, h);
 */
#ifndef LIB_HASH_CHAIN_H
#define LIB_HASH_CHAIN_H

#include <stddef.h>
#include <stdint.h>

struct hash_link {
	struct hash_link	*next;
	uint64_t		hash;
};

struct hash_chain {
	struct hash_link	**bucket;
	size_t			mask;		/* buckets - 1, a power of two minus one */
	size_t			count;
};

/* The entry of type holding link l as its member. */
#define hash_chain_entry(l, type, member) \
	((type *)(void *)((char *)(l) - offsetof(type, member)))

/* Room for about expect entries before the buckets grow.  0 or -ENOMEM. */
int hash_chain_init(struct hash_chain *t, size_t expect);
/* Frees the buckets, not the entries. */
void hash_chain_free(struct hash_chain *t);
/* Forget every entry (the caller frees them), keeping the buckets. */
void hash_chain_clear(struct hash_chain *t);

/* Link l in under hash h (well mixed: its low bits pick the bucket). */
void hash_chain_add(struct hash_chain *t, struct hash_link *l, uint64_t h);
/* Unlink l, which is in t. */
void hash_chain_remove(struct hash_chain *t, struct hash_link *l);

/* The first entry of hash h, or NULL; hash_chain_next: the next one. */
static inline struct hash_link *
hash_chain_first(const struct hash_chain *t, uint64_t h)
{
	struct hash_link	*l = t->bucket[h & t->mask];

	while (l != NULL && l->hash != h)
		l = l->next;
	return l;
}

static inline struct hash_link *
hash_chain_next(const struct hash_link *l)
{
	uint64_t	h = l->hash;

	for (l = l->next; l != NULL && l->hash != h; l = l->next)
		;
	return (struct hash_link *)l;
}

/*
 * Every entry, in no particular order: bucket b from 0 to t->mask, then
 * its chain.  An entry may be removed while its own link is being visited
 * (take l->next first).
 */
static inline struct hash_link *
hash_chain_bucket(const struct hash_chain *t, size_t b)
{
	return t->bucket[b];
}

#endif /* LIB_HASH_CHAIN_H */
