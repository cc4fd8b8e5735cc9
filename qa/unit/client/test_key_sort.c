/*
 * test_key_sort.c - the radix sort of (key, item) pairs: sorted by key,
 * equal keys in their first order, whichever bytes the keys use.
 */
#include <stdint.h>
#include "unit.h"
#include "profile/key_sort.h"

/* Sort n pairs with keys from key_of; check order and stability. */
static void
check_sort(size_t n, uint64_t (*key_of)(size_t i, uint64_t *r))
{
	struct key_item	*v = malloc((n + 1) * sizeof(*v));
	uint64_t	r = 88172645463325252ULL, sum = 0, after = 0;
	size_t		i, bad = 0;

	CHECK(v != NULL);
	if (v == NULL)
		return;
	for (i = 0; i < n; i++) {
		v[i] = (struct key_item){ key_of(i, &r), (uint32_t)i };
		sum += v[i].key ^ i;
	}
	CHECK_INT(key_sort(v, n), 0);
	for (i = 0; i < n; i++) {
		after += v[i].key ^ v[i].item;	/* the same pairs */
		if (i > 0 && (v[i - 1].key > v[i].key ||
			      (v[i - 1].key == v[i].key && v[i - 1].item > v[i].item)))
			bad++;
	}
	CHECK_INT(bad, 0);
	CHECK(after == sum);
	free(v);
}

static uint64_t
xorshift(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

static uint64_t any(size_t i, uint64_t *r) { (void)i; return xorshift(r); }
static uint64_t low_bits(size_t i, uint64_t *r) { (void)i; return xorshift(r) & 0xfff; }
static uint64_t high_byte(size_t i, uint64_t *r) { (void)i; return xorshift(r) << 56; }
static uint64_t few(size_t i, uint64_t *r) { (void)i; return xorshift(r) % 3 << 40 | 5; }
static uint64_t same(size_t i, uint64_t *r) { (void)i; (void)r; return 42; }
static uint64_t down(size_t i, uint64_t *r) { (void)r; return UINT64_MAX - i; }

int
main(void)
{
	size_t	sizes[] = { 0, 1, 2, 3, 255, 256, 257, 100000 }, i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		check_sort(sizes[i], any);
		check_sort(sizes[i], low_bits);
		check_sort(sizes[i], high_byte);
		check_sort(sizes[i], few);
		check_sort(sizes[i], same);
		check_sort(sizes[i], down);
	}
	return unit_report("test_key_sort");
}
