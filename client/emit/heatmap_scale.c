/*
 * heatmap_scale.c - shades by rank, of the counts or of the cells
 * (heatmap_scale.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "heatmap_scale.h"

static int
by_value(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The non-zero counts of the covered cells, sorted; *n of them. */
static uint64_t *
sorted_counts(const struct heatmap *hm, size_t *n)
{
	uint64_t	*v = malloc((hm->ncols * hm->rows + 1) * sizeof(*v));
	size_t		c;
	unsigned	r;

	*n = 0;
	if (v == NULL)
		return NULL;
	for (c = 0; c < hm->ncols; c++)
		for (r = 0; r < hm->rows; r++)
			if (heatmap_cell_covered(hm, c, r) && heatmap_cell(hm, c, r) > 0)
				v[(*n)++] = heatmap_cell(hm, c, r);
	qsort(v, *n, sizeof(*v), by_value);
	return v;
}

int
heatmap_scale_make(struct heatmap_scale *s, const struct heatmap *hm, unsigned nshades)
{
	size_t		n, i, j, k = 0;
	uint64_t	*all = sorted_counts(hm, &n);
	double		*rank, lo, hi;

	*s = (struct heatmap_scale){ .nshades = nshades };
	rank = all ? malloc((n + 1) * sizeof(*rank)) : NULL;
	s->value = rank ? malloc((n + 1) * sizeof(*s->value)) : NULL;
	s->shade = s->value ? malloc(n + 1) : NULL;
	if (s->shade == NULL) {
		free(all);
		free(rank);
		heatmap_scale_free(s);
		return -ENOMEM;
	}
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && all[j] == all[i]; j++)
			;
		s->value[k] = all[i];
		rank[k++] = ((double)i + (double)(j - i) / 2) / (double)n;
	}
	s->n = k;
	lo = k ? rank[0] : 0;
	hi = k ? rank[k - 1] : 0;
	for (i = 0; i < k; i++) {
		double	at = k <= HEATMAP_SCALE_ORDINAL ? (k > 1 ? (double)i / (double)(k - 1) : 1) :
			     (rank[i] - lo) / (hi - lo);

		s->shade[i] = (uint8_t)lround(at * (nshades - 1));
	}
	free(all);
	free(rank);
	return 0;
}

unsigned
heatmap_scale_shade(const struct heatmap_scale *s, uint64_t count)
{
	size_t	lo = 0, hi = s->n;

	while (lo < hi) {		/* the first value > count */
		size_t mid = lo + (hi - lo) / 2;

		if (s->value[mid] <= count)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? s->shade[lo - 1] : 0;
}

uint64_t
heatmap_scale_value_at(const struct heatmap_scale *s, unsigned shade)
{
	size_t	i;

	for (i = 0; i < s->n; i++)
		if (s->shade[i] >= shade)
			return s->value[i];
	return 0;
}

void
heatmap_scale_free(struct heatmap_scale *s)
{
	free(s->value);
	free(s->shade);
	s->value = NULL;
	s->shade = NULL;
	s->n = 0;
}
