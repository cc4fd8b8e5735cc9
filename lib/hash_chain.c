/*
 * hash_chain.c - linking entries in and out, growing the buckets (see
 * hash_chain.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hash_chain.h"

#define FIRST_BUCKETS	1024

int
hash_chain_init(struct hash_chain *t, size_t expect)
{
	size_t	n = FIRST_BUCKETS;

	while (n < expect)
		n *= 2;
	t->count = 0;
	t->mask = n - 1;
	return (t->bucket = calloc(n, sizeof(*t->bucket))) ? 0 : -ENOMEM;
}

void
hash_chain_free(struct hash_chain *t)
{
	free(t->bucket);
	t->bucket = NULL;
	t->mask = t->count = 0;
}

void
hash_chain_clear(struct hash_chain *t)
{
	memset(t->bucket, 0, (t->mask + 1) * sizeof(*t->bucket));
	t->count = 0;
}

/* Twice the buckets, once there are more entries than buckets; on
 * failure the chains just grow longer. */
static void
grow(struct hash_chain *t)
{
	size_t			n = (t->mask + 1) * 2, i;
	struct hash_link	**b = calloc(n, sizeof(*b)), *l;

	if (b == NULL)
		return;
	for (i = 0; i <= t->mask; i++)
		while ((l = t->bucket[i]) != NULL) {
			t->bucket[i] = l->next;
			l->next = b[l->hash & (n - 1)];
			b[l->hash & (n - 1)] = l;
		}
	free(t->bucket);
	t->bucket = b;
	t->mask = n - 1;
}

void
hash_chain_add(struct hash_chain *t, struct hash_link *l, uint64_t h)
{
	struct hash_link	**head = &t->bucket[h & t->mask];

	l->hash = h;
	l->next = *head;
	*head = l;
	if (++t->count > t->mask + 1)
		grow(t);
}

void
hash_chain_remove(struct hash_chain *t, struct hash_link *l)
{
	struct hash_link	**pp = &t->bucket[l->hash & t->mask];

	while (*pp != l)
		pp = &(*pp)->next;
	*pp = l->next;
	l->next = NULL;
	t->count--;
}
