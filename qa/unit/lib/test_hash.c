/*
 * test_hash.c - the one hash table (lib/hash.h): exact keys
 * found again after many growths, keys that repeat (hashes of different
 * items) all walked, no false hits; and the interning built on it
 * (lib/intern.h): ids in order of first appearance, a tag making a
 * different entry, substrings, names kept after sealing.
 */
#include <errno.h>
#include <stdlib.h>
#include "unit.h"
#include "lib/hash.h"
#include "lib/intern.h"

#define N	100000
#define SHARED	0xdead00000000ULL

/* (parent, child) pairs as 64-bit keys, as the flame tree and the heat map use them */
static uint64_t
pair(uint32_t a, uint32_t b)
{
	return hash_mix((uint64_t)a << 32 | b);
}

static void
test_exact_keys(void)
{
	struct hash_table	t;
	struct hash_slot	*s;
	uint32_t		i, missing = 0, wrong = 0;

	CHECK_INT(hash_table_init(&t, 0), 0);
	for (i = 0; i < N; i++) {
		s = hash_table_find(&t, pair(i / 7, i));
		if (!hash_slot_empty(s))
			wrong++;			/* not there yet */
		else if (hash_table_insert(&t, s, pair(i / 7, i), i) < 0)
			break;
	}
	CHECK_INT(wrong, 0);
	CHECK_INT(t.count, N);
	CHECK(t.count * 4 <= (t.mask + 1) * 3);		/* grew: at most 3/4 full */
	for (i = 0; i < N; i++) {
		s = hash_table_find(&t, pair(i / 7, i));
		if (hash_slot_empty(s) || hash_slot_value(s) != i)
			missing++;
	}
	CHECK_INT(missing, 0);
	/* keys never put: not found, though their halves were */
	CHECK(hash_slot_empty(hash_table_find(&t, pair(1, 1))));
	CHECK(hash_slot_empty(hash_table_find(&t, pair(N, N))));
	CHECK(hash_slot_empty(hash_table_find(&t, pair(0, 0) | 1ULL << 63)));
	hash_table_free(&t);
	CHECK(t.slots == NULL && t.count == 0);
}

/* Keys that repeat: every value of a key is walked, once. */
static void
test_repeated_keys(void)
{
	struct hash_table	t;
	struct hash_slot	*s;
	uint32_t		i, seen[5] = { 0 }, n = 0;

	CHECK_INT(hash_table_init(&t, 4000), 0);
	CHECK(t.mask + 1 >= 4000 / 3 * 4);
	for (i = 0; i < 5000; i++) {
		uint64_t key = i < 5 ? SHARED : i;	/* five items share one key */

		for (s = hash_table_find(&t, key); !hash_slot_empty(s); s = hash_table_next(&t, key, s))
			;
		CHECK_INT(hash_table_insert(&t, s, key, i), 0);
	}
	for (s = hash_table_find(&t, SHARED); !hash_slot_empty(s); s = hash_table_next(&t, SHARED, s)) {
		if (hash_slot_value(s) < 5)
			seen[hash_slot_value(s)]++;
		n++;
	}
	CHECK_INT(n, 5);
	for (i = 0; i < 5; i++)
		CHECK_INT(seen[i], 1);
	hash_table_free(&t);
}

/* Cleared, the table finds nothing, keeps its slots, and fills again. */
static void
test_clear(void)
{
	struct hash_table	t;
	struct hash_slot	*s;
	size_t			slots;
	uint32_t		i, found = 0;

	CHECK_INT(hash_table_init(&t, 0), 0);
	for (i = 0; i < 5000; i++)
		hash_table_insert(&t, hash_table_find(&t, pair(i, i)), pair(i, i), i);
	slots = t.mask + 1;
	hash_table_clear(&t);
	CHECK_INT(t.count, 0);
	CHECK_INT(t.mask + 1, slots);
	for (i = 0; i < 5000; i++)
		found += !hash_slot_empty(hash_table_find(&t, pair(i, i)));
	CHECK_INT(found, 0);
	s = hash_table_find(&t, pair(7, 7));
	CHECK_INT(hash_table_insert(&t, s, pair(7, 7), 70), 0);
	s = hash_table_find(&t, pair(7, 7));
	CHECK(!hash_slot_empty(s) && hash_slot_value(s) == 70);
	hash_table_free(&t);
}

static void
test_hash_functions(void)
{
	/* FNV-1a's published values: frame colours, file names and image ids
	 * depend on them */
	CHECK_INT(hash_stable32(""), 2166136261u);
	CHECK_INT(hash_stable32("a"), 0xe40c292cu);
	CHECK_INT(hash_stable32("foobar"), 0xbf9cf968u);
	CHECK_INT(hash_stable32_more(hash_stable32("foo"), "bar"), 0xbf9cf968u);
	CHECK(hash_stable64("", 0) == 0xcbf29ce484222325ULL);
	CHECK(hash_stable64("a", 1) == 0xaf63dc4c8601ec8cULL);
	CHECK(hash_stable64("foobar", 6) == 0x85944171f73967e8ULL);
	CHECK(hash_stable64_more(hash_stable64("foo", 3), "bar", 3) == 0x85944171f73967e8ULL);
	CHECK(hash_stable64("a\0b", 3) != hash_stable64("a\0c", 3));	/* bytes, not a string */
	/* every byte counts, whatever the length */
	CHECK(hash_bytes("abcdefgh1", 9) != hash_bytes("abcdefgh2", 9));
	CHECK(hash_bytes("abcdefgh", 8) != hash_bytes("abcdefgh", 7));
	CHECK(hash_bytes("ab", 2) != hash_bytes("ba", 2));
	CHECK(hash_bytes("", 0) == hash_bytes("x", 0));
}

static void
test_intern(void)
{
	struct intern	in;
	uint32_t	id, a, b, c;
	char		name[32];
	int		i, bad = 0;

	CHECK_INT(intern_init(&in), 0);
	CHECK_INT(intern_put(&in, "main", 4, 'A', &a), 0);
	CHECK_INT(intern_put(&in, "main", 4, 'P', &b), 0);	/* same text, other type */
	CHECK_INT(intern_put(&in, "main;x", 4, 'A', &c), 0);	/* a prefix of the text */
	CHECK_INT(a, 0);
	CHECK_INT(b, 1);
	CHECK_INT(c, 0);
	CHECK_INT(intern_put(&in, "mai", 3, 'A', &id), 0);	/* shorter: new */
	CHECK_INT(id, 2);
	CHECK_INT(intern_put(&in, "", 0, 'A', &id), 0);
	CHECK_INT(id, 3);
	for (i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "fn%d", i);
		if (intern_put(&in, name, strlen(name), 'A', &id) < 0 || id != (uint32_t)i + 4)
			bad++;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(intern_put(&in, "fn123", 5, 'A', &id), 0);
	CHECK_INT(id, 127);
	CHECK_INT(in.count, 20004);
	intern_seal(&in);
	CHECK(in.entries == NULL && in.index.slots == NULL);
	intern_free(&in);
}

/* After sealing, names handed out before stay valid (the tree keeps them). */
static void
test_intern_seal_keeps_names(void)
{
	struct intern	in;
	const char	*kept;
	uint32_t	id;

	intern_init(&in);
	intern_put(&in, "[k] do_syscall_64", 17, 'K', &id);
	kept = intern_name(&in, id);
	CHECK_STR(kept, "[k] do_syscall_64");
	CHECK_INT(intern_tag(&in, id), 'K');
	intern_seal(&in);
	CHECK_STR(kept, "[k] do_syscall_64");
	intern_free(&in);
}

int
main(void)
{
	test_exact_keys();
	test_repeated_keys();
	test_clear();
	test_hash_functions();
	test_intern();
	test_intern_seal_keeps_names();
	return unit_report("test_hash");
}
