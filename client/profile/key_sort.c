/*
 * key_sort.c - a least-significant-byte-first radix sort (key_sort.h).
 * A byte that is the same in every key is skipped, so keys that use the
 * low 52 bits cost 7 passes, and one pass of counting finds them all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "key_sort.h"

int
key_sort(struct key_item *v, size_t n)
{
	static const unsigned	bytes = sizeof(uint64_t);
	size_t			(*count)[256] = calloc(bytes, sizeof(*count));
	struct key_item		*tmp = malloc((n ? n : 1) * sizeof(*tmp)), *from = v, *to = tmp;
	size_t			i;
	unsigned		b;

	if (count == NULL || tmp == NULL) {
		free(count);
		free(tmp);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		for (b = 0; b < bytes; b++)
			count[b][(v[i].key >> (8 * b)) & 0xff]++;
	for (b = 0; b < bytes; b++) {
		size_t		at = 0, c, d;
		struct key_item	*swap;

		if (n == 0 || count[b][(v[0].key >> (8 * b)) & 0xff] == n)
			continue;	/* one value in this byte: order unchanged */
		for (d = 0; d < 256; d++) {	/* counts to first positions */
			c = count[b][d];
			count[b][d] = at;
			at += c;
		}
		for (i = 0; i < n; i++)
			to[count[b][(from[i].key >> (8 * b)) & 0xff]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	free(count);
	free(tmp);
	return 0;
}
