/*
 * test_array.c - the one growing array (lib/array.h): doubling from
 * ARRAY_FIRST, no growth when there is room, contents kept, and a size
 * that cannot be allocated refused with the array and capacity unchanged.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "unit.h"
#include "lib/array.h"

struct item {
	uint32_t	a, b, c;
};

static void
test_capacity(void)
{
	CHECK_INT(array_capacity(0, 1, 4), ARRAY_FIRST);
	CHECK_INT(array_capacity(0, ARRAY_FIRST + 1, 4), 2 * ARRAY_FIRST);
	CHECK_INT(array_capacity(100, 100, 4), 100);		/* room: unchanged */
	CHECK_INT(array_capacity(100, 101, 4), 200);
	CHECK_INT(array_capacity(100, 1000, 4), 1600);
	CHECK_INT(array_capacity(0, SIZE_MAX / 8 + 1, 8), 0);	/* bytes overflow */
	CHECK_INT(array_capacity(4, 5, 0), 0);
}

static void
test_reserve(void)
{
	struct item	*v = NULL;
	size_t		cap = 0, i, bad = 0;

	for (i = 0; i < 5000; i++) {
		if (array_reserve(&v, &cap, i + 1) < 0)
			break;
		v[i] = (struct item){ (uint32_t)i, (uint32_t)i * 2, (uint32_t)i * 3 };
	}
	CHECK_INT(i, 5000);
	CHECK_INT(cap, 8192);
	for (i = 0; i < 5000; i++)
		bad += v[i].a != i || v[i].b != 2 * i || v[i].c != 3 * i;
	CHECK_INT(bad, 0);
	/* room already: nothing moves */
	{
		struct item *before = v;

		CHECK_INT(array_reserve(&v, &cap, 8192), 0);
		CHECK(v == before);
	}
	/* too big to allocate: refused, nothing lost */
	{
		struct item	*before = v;
		size_t		before_cap = cap;

		/* (elements x 12 bytes overflow: refused before any allocation,
		 * which ASan builds would abort on) */
		CHECK_INT(array_reserve(&v, &cap, SIZE_MAX / 4), -ENOMEM);
		CHECK_INT(array_reserve(&v, &cap, (size_t)1 << 62), -ENOMEM);
		CHECK(v == before);
		CHECK_INT(cap, before_cap);
		CHECK_INT(v[4999].c, 3 * 4999);
	}
	free(v);
}

/* Exact sizes, contents kept when growing and shrinking, overflow refused. */
static void
test_resize(void)
{
	uint32_t	*v = NULL, *before;
	size_t		i, bad = 0;

	CHECK_INT(array_resize(&v, 0), 0);		/* room for one: a valid pointer */
	CHECK(v != NULL);
	CHECK_INT(array_resize(&v, 1000), 0);
	for (i = 0; i < 1000; i++)
		v[i] = (uint32_t)i * 7;
	CHECK_INT(array_resize(&v, 10), 0);
	CHECK_INT(array_resize(&v, 3000), 0);
	for (i = 0; i < 10; i++)
		bad += v[i] != i * 7;
	CHECK_INT(bad, 0);
	before = v;
	CHECK_INT(array_resize(&v, SIZE_MAX / 2), -ENOMEM);	/* bytes overflow */
	CHECK(v == before);
	CHECK_INT(v[9], 63);
	free(v);
}

int
main(void)
{
	test_capacity();
	test_reserve();
	test_resize();
	return unit_report("test_array");
}
