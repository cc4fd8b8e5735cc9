/*
 * test_hash_chain.c - the chained table of entries that live elsewhere
 * (lib/hash_chain.h): every entry found again after the buckets grew,
 * entries sharing a hash all walked, removal of any one leaving the
 * others, clearing, and a visit of every bucket that may remove as it
 * goes.
 */
#include <stdlib.h>
#include "unit.h"
#include "lib/hash.h"
#include "lib/hash_chain.h"

#define N	20000

struct item {
	int			key;
	struct hash_link	link;
	int			seen;
};

static struct item *
find(const struct hash_chain *t, int key, uint64_t h)
{
	for (struct hash_link *l = hash_chain_first(t, h); l; l = hash_chain_next(l))
		if (hash_chain_entry(l, struct item, link)->key == key)
			return hash_chain_entry(l, struct item, link);
	return NULL;
}

static uint64_t
hash_of(int key)
{
	return key < 10 ? 42 : hash_mix((uint64_t)key);	/* ten keys share a hash */
}

static void
test_add_find_remove(void)
{
	struct hash_chain	t;
	struct item		*v = calloc(N, sizeof(*v));
	int			i, missing = 0, wrong = 0, shared = 0;

	CHECK_INT(hash_chain_init(&t, 0), 0);
	CHECK_INT(t.mask + 1, 1024);
	for (i = 0; i < N; i++) {
		v[i].key = i;
		hash_chain_add(&t, &v[i].link, hash_of(i));
	}
	CHECK_INT(t.count, N);
	CHECK(t.mask + 1 >= N);				/* grew: chains stay short */
	for (i = 0; i < N; i++)
		missing += find(&t, i, hash_of(i)) != &v[i];
	CHECK_INT(missing, 0);
	CHECK(find(&t, N, hash_of(N)) == NULL);
	for (struct hash_link *l = hash_chain_first(&t, 42); l; l = hash_chain_next(l))
		shared++;
	CHECK_INT(shared, 10);
	/* remove the odd ones: the even ones stay, the odd ones are gone */
	for (i = 1; i < N; i += 2)
		hash_chain_remove(&t, &v[i].link);
	CHECK_INT(t.count, N / 2);
	for (i = 0; i < N; i++)
		wrong += (find(&t, i, hash_of(i)) != NULL) != (i % 2 == 0);
	CHECK_INT(wrong, 0);
	hash_chain_clear(&t);
	CHECK_INT(t.count, 0);
	CHECK(find(&t, 0, hash_of(0)) == NULL);
	hash_chain_free(&t);
	CHECK(t.bucket == NULL);
	free(v);
}

/* A visit of every bucket finds each entry once, and may remove the
 * entry it is on. */
static void
test_visit(void)
{
	struct hash_chain	t;
	struct item		v[3000] = { 0 };
	struct hash_link	*l, *next;
	int			i, twice = 0, left = 0;

	CHECK_INT(hash_chain_init(&t, 3000), 0);
	CHECK(t.mask + 1 >= 3000);
	for (i = 0; i < 3000; i++) {
		v[i].key = i;
		hash_chain_add(&t, &v[i].link, hash_of(i));
	}
	for (size_t b = 0; b <= t.mask; b++)
		for (l = hash_chain_bucket(&t, b); l; l = next) {
			struct item *it = hash_chain_entry(l, struct item, link);

			next = l->next;
			twice += it->seen++ > 0;
			if (it->key % 3 == 0)
				hash_chain_remove(&t, l);
		}
	for (i = 0; i < 3000; i++)
		left += v[i].seen == 1 && (find(&t, i, hash_of(i)) != NULL) == (i % 3 != 0);
	CHECK_INT(twice, 0);
	CHECK_INT(left, 3000);
	CHECK_INT(t.count, 2000);
	hash_chain_free(&t);
}

int
main(void)
{
	test_add_find_remove();
	test_visit();
	return unit_report("test_hash_chain");
}
