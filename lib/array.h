/*
 * array.h - growing arrays: the one place either side doubles a capacity,
 * with the check that the new size fits in a size_t.
 *
 *	struct flame_node *nodes; size_t cap;
 *	if (array_reserve(&nodes, &cap, n + 1) < 0) return -ENOMEM;
 */
#ifndef LIB_ARRAY_H
#define LIB_ARRAY_H

#include <stddef.h>

/* First capacity of an array that grows from nothing. */
#define ARRAY_FIRST	16

/*
 * The capacity to grow cap to for need elements of elem bytes: cap (or
 * ARRAY_FIRST) doubled until it holds need; cap itself when it does.
 * 0 when need elements would not fit in a size_t of bytes.
 */
size_t array_capacity(size_t cap, size_t need, size_t elem);

/*
 * Make *arrayp (a pointer to T *) hold at least need elements, doubling
 * *cap.  0, or -ENOMEM with the array and *cap unchanged.  need is read
 * twice: the check that there is room already costs no call.
 */
#define array_reserve(arrayp, cap, need) \
	((need) <= *(cap) ? 0 : array_reserve_bytes((arrayp), (cap), (need), sizeof(**(arrayp))))
int array_reserve_bytes(void *arrayp, size_t *cap, size_t need, size_t elem);

/*
 * Make *arrayp hold exactly n elements, for arrays whose length is their
 * capacity (instance lists handed to libpcp, arrays grown together in
 * step).  0, or -ENOMEM with the array unchanged when n elements would not
 * fit in a size_t of bytes or memory is short.  n == 0 keeps room for one,
 * so that the array stays a valid pointer.
 */
#define array_resize(arrayp, n) array_resize_bytes((arrayp), (n), sizeof(**(arrayp)))
int array_resize_bytes(void *arrayp, size_t n, size_t elem);

#endif /* LIB_ARRAY_H */
