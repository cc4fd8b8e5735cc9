/*
 * array.c - capacity doubling for every growing array (see array.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"

size_t
array_capacity(size_t cap, size_t need, size_t elem)
{
	if (elem == 0 || need > SIZE_MAX / elem)
		return 0;
	if (need <= cap)
		return cap;
	if (cap == 0)
		cap = ARRAY_FIRST;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 / elem ? need : cap * 2;
	return cap;
}

/* arrayp points at a T *: read and write it as bytes, which is what any
 * object pointer is here, so no T * is ever accessed as a void *. */
int
array_resize_bytes(void *arrayp, size_t n, size_t elem)
{
	void	*a, *p;

	if (n == 0)
		n = 1;
	if (elem == 0 || n > SIZE_MAX / elem)
		return -ENOMEM;
	memcpy(&a, arrayp, sizeof(a));
	if ((p = realloc(a, n * elem)) == NULL)
		return -ENOMEM;
	memcpy(arrayp, &p, sizeof(p));
	return 0;
}

int
array_reserve_bytes(void *arrayp, size_t *cap, size_t need, size_t elem)
{
	size_t	ncap;
	void	*a, *p;

	if (need <= *cap)
		return 0;
	if ((ncap = array_capacity(*cap, need, elem)) == 0)
		return -ENOMEM;
	memcpy(&a, arrayp, sizeof(a));
	if ((p = realloc(a, ncap * elem)) == NULL)
		return -ENOMEM;
	memcpy(arrayp, &p, sizeof(p));
	*cap = ncap;
	return 0;
}
