/*
 * heatmap_columns.c - the heat map's columns, one per second: the column
 * of a second, grown either way (cells, coverage and each second's stacks
 * together), and whether a second is outside the window.  heatmap.c (the
 * matrix) and heatmap_stacks.c (the stacks) both index through it, so the
 * stacks need nothing of the matrix's file.
 */
#include <errno.h>
#include <string.h>
#include "lib/array.h"
#include "heatmap_impl.h"

static int
reserve_columns(struct heatmap *hm, size_t want)
{
	size_t	max = HEATMAP_MAX_CELLS / hm->rows, cap;

	if (want <= hm->cols_cap)
		return 0;
	if (want > max)
		return -E2BIG;
	cap = array_capacity(hm->cols_cap, want, hm->rows * sizeof(*hm->cells));
	if (cap > max)
		cap = max;
	/* three arrays of one length: grown together (cap * rows <= the
	 * cell bound, so no product overflows) */
	if (array_resize(&hm->cells, cap * hm->rows) < 0 ||
	    array_resize(&hm->covered, cap * hm->rows) < 0 ||
	    array_resize(&hm->stacks, cap) < 0)
		return -ENOMEM;
	hm->cols_cap = cap;
	return 0;
}

/* Make k empty columns at index at (shifting the later ones right). */
static void
open_columns(struct heatmap *hm, size_t at, size_t k)
{
	size_t	r = hm->rows, tail = hm->ncols - at;

	memmove(hm->cells + (at + k) * r, hm->cells + at * r, tail * r * sizeof(*hm->cells));
	memmove(hm->covered + (at + k) * r, hm->covered + at * r, tail * r);
	memmove(hm->stacks + at + k, hm->stacks + at, tail * sizeof(*hm->stacks));
	memset(hm->cells + at * r, 0, k * r * sizeof(*hm->cells));
	memset(hm->covered + at * r, 0, k * r);
	memset(hm->stacks + at, 0, k * sizeof(*hm->stacks));
	hm->ncols += k;
}

/* The column of second sec, growing the matrix either way as needed. */
int
heatmap_column_of(struct heatmap *hm, int64_t sec, size_t *col)
{
	int64_t	k;
	int	sts;

	if (hm->ncols == 0)
		hm->first_sec = sec;
	if (sec < hm->first_sec) {
		k = hm->first_sec - sec;
		if ((uint64_t)k > HEATMAP_MAX_CELLS)
			return -E2BIG;
		if ((sts = reserve_columns(hm, hm->ncols + (size_t)k)) < 0)
			return sts;
		open_columns(hm, 0, (size_t)k);
		hm->first_sec = sec;
	} else if (sec - hm->first_sec >= (int64_t)hm->ncols) {
		k = sec - hm->first_sec + 1 - (int64_t)hm->ncols;
		if ((uint64_t)k > HEATMAP_MAX_CELLS)
			return -E2BIG;
		if ((sts = reserve_columns(hm, hm->ncols + (size_t)k)) < 0)
			return sts;
		open_columns(hm, hm->ncols, (size_t)k);
	}
	*col = (size_t)(sec - hm->first_sec);
	return 0;
}

int
heatmap_outside(const struct heatmap *hm, int64_t sec)
{
	return hm->have_window && (sec < hm->win_from || sec > hm->win_to);
}
