/*
 * hash.c - growing the hash table; the hash functions (see hash.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hash.h"

#define FIRST_SLOTS	1024

static struct hash_slot *
empty_slots(size_t n)
{
	return calloc(n, sizeof(struct hash_slot));	/* zeroed: every slot empty */
}

int
hash_table_init(struct hash_table *t, size_t expect)
{
	size_t	n = FIRST_SLOTS;

	while (n / 4 * 3 < expect)
		n *= 2;
	t->count = 0;
	t->mask = n - 1;
	return (t->slots = empty_slots(n)) ? 0 : -ENOMEM;
}

void
hash_table_free(struct hash_table *t)
{
	free(t->slots);
	t->slots = NULL;
	t->mask = t->count = 0;
}

void
hash_table_clear(struct hash_table *t)
{
	memset(t->slots, 0, (t->mask + 1) * sizeof(*t->slots));
	t->count = 0;
}

static int
grow(struct hash_table *t)
{
	size_t			n = (t->mask + 1) * 2, i, j;
	struct hash_slot	*slots = empty_slots(n);
	const struct hash_slot	*s;

	if (slots == NULL)
		return -ENOMEM;
	for (i = 0; i <= t->mask; i++) {
		if ((s = &t->slots[i])->value == 0)
			continue;
		j = s->key_lo & (n - 1);	/* the key's low bits, as in a search */
		while (slots[j].value != 0)
			j = (j + 1) & (n - 1);
		slots[j] = *s;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = n - 1;
	return 0;
}

/* The slow path of hash_table_insert: grow, then put key where a search
 * in the new slots ends (past any slots of the same key). */
int
hash_table_grow_insert(struct hash_table *t, uint64_t key, uint32_t value)
{
	struct hash_slot	*s;

	if (grow(t) < 0)
		return -ENOMEM;
	for (s = hash_table_find(t, key); !hash_slot_empty(s); s = hash_table_next(t, key, s))
		;
	return hash_table_insert(t, s, key, value);
}
