/*
 * hash.h - the hash table and the hash functions of both sides.
 *
 * The table maps 64-bit keys to 32-bit values (indexes into the caller's
 * own arrays), with open addressing and linear probing.  A slot holds the
 * whole key, so growing never needs the items, and a probe touches an item
 * only when its key matches.  Keys must be well mixed (their low bits pick
 * the slot):
 *  - exact keys: hash_mix() of a (parent, child) pair packed in 64 bits,
 *    a bijection, so equal keys are equal pairs and need no more;
 *  - keys that are hashes of longer data (hash_bytes() of a name) may
 *    repeat, so the caller walks every slot of the key and compares the
 *    item itself.
 *
 *	for (s = hash_table_find(t, key); !hash_slot_empty(s); s = hash_table_next(t, key, s))
 *		if (same_item(hash_slot_value(s), ...))
 *			return hash_slot_value(s);
 *	return hash_table_insert(t, s, key, new_id);	// s: where the search ended
 */
#ifndef LIB_HASH_H
#define LIB_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct hash_slot {
	uint32_t	key_lo, key_hi;
	uint32_t	value;		/* value + 1; 0: empty */
};

struct hash_table {
	struct hash_slot *slots;
	size_t		mask;		/* slots - 1, a power of two minus one */
	size_t		count;
};

/* Room for about expect keys before the first growth.  0 or -ENOMEM. */
int hash_table_init(struct hash_table *t, size_t expect);
void hash_table_free(struct hash_table *t);
/* Empty the table, keeping its slots (a cache refilled at every drain). */
void hash_table_clear(struct hash_table *t);

/* splitmix64's finalizer: spreads keys that differ in few bits; a
 * bijection, so a mixed pair is still an exact key. */
static inline uint64_t
hash_mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline int
hash_slot_empty(const struct hash_slot *s)
{
	return s->value == 0;
}

static inline uint32_t
hash_slot_value(const struct hash_slot *s)
{
	return s->value - 1;
}

/* From slot s on: the first slot holding key, or the empty one ending the run. */
static inline struct hash_slot *
hash_table_scan(const struct hash_table *t, uint64_t key, size_t i)
{
	const uint32_t	lo = (uint32_t)key, hi = (uint32_t)(key >> 32);
	struct hash_slot *s;

	for (;; i = (i + 1) & t->mask) {
		s = &t->slots[i];
		if (s->value == 0 || (s->key_lo == lo && s->key_hi == hi))
			return s;
	}
}

static inline struct hash_slot *
hash_table_find(const struct hash_table *t, uint64_t key)
{
	return hash_table_scan(t, key, key & t->mask);
}

/* The next slot after s (one holding key) that holds key, or the empty one. */
static inline struct hash_slot *
hash_table_next(const struct hash_table *t, uint64_t key, const struct hash_slot *s)
{
	return hash_table_scan(t, key, ((size_t)(s - t->slots) + 1) & t->mask);
}

/*
 * Fill the empty slot s that a search for key ended on with value
 * (< UINT32_MAX).  The table grows first when it would be over 3/4 full,
 * so slot pointers are stale afterwards.  0, or -ENOMEM with the table
 * unchanged.
 */
int hash_table_grow_insert(struct hash_table *t, uint64_t key, uint32_t value);

static inline int
hash_table_insert(struct hash_table *t, struct hash_slot *s, uint64_t key, uint32_t value)
{
	if ((t->count + 1) * 4 > (t->mask + 1) * 3)
		return hash_table_grow_insert(t, key, value);
	s->key_lo = (uint32_t)key;
	s->key_hi = (uint32_t)(key >> 32);
	s->value = value + 1;
	t->count++;
	return 0;
}

/* A 64-bit hash of len bytes, a word at a time (names, whole stacks);
 * inline: the tree hashes a name for every frame it has not seen above.
 * The last bytes are read as one (overlapping) word, wyhash's way. */
static inline uint64_t
hash_bytes(const void *data, size_t len)
{
	const unsigned char	*p = data;
	uint64_t		h = 0x9E3779B97F4A7C15ULL ^ len, w = 0;
	uint32_t		a, b;
	size_t			n = len;

	for (; n > 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	if (len >= 8)
		memcpy(&w, p + n - 8, 8);
	else if (n >= 4) {
		memcpy(&a, p, 4);
		memcpy(&b, p + n - 4, 4);
		w = (uint64_t)a << 32 | b;
	} else if (n > 0)
		w = (uint64_t)p[0] << 16 | (uint64_t)p[n / 2] << 8 | p[n - 1];
	/* a product's low bits see only the factors' low bits, and names
	 * that differ in their last bytes differ in w's high ones: mix all
	 * of h into the low bits that pick the slot */
	return hash_mix(h ^ w);
}

/*
 * FNV-1a, 32 and 64 bits: stable across runs and releases, for what users
 * see or what is written down (frame colours, shortened file names, image
 * identities).  The _more forms go on from a hash already begun, so that
 * several fields hash as one.
 */
#define HASH_STABLE32_SEED	2166136261u
#define HASH_STABLE64_SEED	0xcbf29ce484222325ULL

static inline uint32_t
hash_stable32_more(uint32_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static inline uint32_t
hash_stable32(const char *s)
{
	return hash_stable32_more(HASH_STABLE32_SEED, s);
}

static inline uint64_t
hash_stable64_more(uint64_t h, const void *data, size_t len)
{
	const unsigned char	*p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static inline uint64_t
hash_stable64(const void *data, size_t len)
{
	return hash_stable64_more(HASH_STABLE64_SEED, data, len);
}

#endif /* LIB_HASH_H */
