/*
 * key_sort.h - sort (key, item) pairs by key: a radix sort, a byte of the
 * key at a time from the lowest that differs, so equal keys keep their
 * order.  A flame tree sorts 100k stacks by their first frames' ranks in
 * a few passes over 16-byte pairs, where a comparison sort moves its
 * 48-byte stacks 1.7 M times through a callback (bench/render).
 */
#ifndef KEY_SORT_H
#define KEY_SORT_H

#include <stddef.h>
#include <stdint.h>

struct key_item {
	uint64_t	key;
	uint32_t	item;
};

/* Sort v[0 .. n) by key, stably.  0 or -ENOMEM (v unchanged). */
int key_sort(struct key_item *v, size_t n);

#endif /* KEY_SORT_H */
