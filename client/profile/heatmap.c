/*
 * heatmap.c - the heat map's matrix: seconds (columns) x slices (rows),
 * filled from counter deltas.  The stacks beside it are heatmap_stacks.c;
 * the columns both index are heatmap_columns.c.
 * See heatmap.h for the model and docs/design.md ("Heat maps") for how
 * counter deltas are mapped to seconds.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "heatmap_impl.h"

int
heatmap_init(struct heatmap *hm, unsigned rows)
{
	memset(hm, 0, sizeof(*hm));
	if (rows == 0 || rows > HEATMAP_MAX_ROWS)
		return -EINVAL;
	hm->rows = rows;
	return heatmap_stacks_init(hm);
}

void
heatmap_free(struct heatmap *hm)
{
	heatmap_stacks_free(hm);
	free(hm->stacks);
	free(hm->cells);
	free(hm->covered);
	free(hm->prev);
	memset(hm, 0, sizeof(*hm));
}

int
heatmap_set_window(struct heatmap *hm, int64_t from_sec, int64_t to_sec)
{
	int	sts;

	if (from_sec > to_sec)
		return -EINVAL;
	if ((uint64_t)(to_sec - from_sec) >= HEATMAP_MAX_CELLS / hm->rows)
		return -E2BIG;
	if ((sts = heatmap_cover_range(hm, from_sec, to_sec)) < 0)
		return sts;
	hm->have_window = 1;
	hm->win_from = from_sec;
	hm->win_to = to_sec;
	return 0;
}

int
heatmap_add_cell(struct heatmap *hm, int64_t sec, unsigned row, uint64_t count)
{
	size_t	col;
	int	sts;

	if (row >= hm->rows)
		return -EINVAL;
	if (heatmap_outside(hm, sec))
		return 0;
	if ((sts = heatmap_column_of(hm, sec, &col)) < 0)
		return sts;
	hm->cells[col * hm->rows + row] += count;
	hm->covered[col * hm->rows + row] = 1;
	return 0;
}

int
heatmap_cover_range(struct heatmap *hm, int64_t from_sec, int64_t to_sec)
{
	size_t	col;
	int	sts;

	if (from_sec > to_sec)
		return 0;
	if ((sts = heatmap_column_of(hm, from_sec, &col)) < 0)
		return sts;
	return heatmap_column_of(hm, to_sec, &col);
}

/* ---- counters ---- */

static int set_baseline(struct heatmap *hm, double t, const uint64_t *values, unsigned n);

int
heatmap_counters_baseline(struct heatmap *hm, double t, const uint64_t *values, unsigned n)
{
	if (n == 0 || !isfinite(t))
		return -EINVAL;
	if (hm->have_prev && n != hm->prev_n)
		hm->resets++;
	return set_baseline(hm, t, values, n);
}

static int
set_baseline(struct heatmap *hm, double t, const uint64_t *values, unsigned n)
{
	if (array_reserve(&hm->prev, &hm->prev_cap, n) < 0)
		return -ENOMEM;
	memcpy(hm->prev, values, n * sizeof(*values));
	hm->prev_n = n;
	hm->prev_t = t;
	hm->have_prev = 1;
	return 0;
}

/*
 * Slice i of n, counted up to time t: the wall-clock second it belongs to is
 * the latest second s whose slice i (taken at its midpoint) is not after t.
 */
static int64_t
slice_second(double t, unsigned i, unsigned n)
{
	double	mid = (i + 0.5) / n;
	int64_t	s = (int64_t)floor(t);

	if ((double)s + mid > t)
		s--;
	return s;
}

static int
add_slice(struct heatmap *hm, int64_t sec, unsigned i, unsigned n, uint64_t d)
{
	unsigned	row = (unsigned)((i + 0.5) * hm->rows / n);
	unsigned	lo = (unsigned)((uint64_t)i * hm->rows / n);
	unsigned	hi = (unsigned)((uint64_t)(i + 1) * hm->rows / n);
	size_t		col;
	int		sts;

	if (heatmap_outside(hm, sec))
		return 0;
	if ((sts = heatmap_add_cell(hm, sec, row, d)) < 0)
		return sts;
	/* a coarser source slice covers every finer row inside it */
	if ((sts = heatmap_column_of(hm, sec, &col)) < 0)
		return sts;
	for (; lo < hi; lo++)
		hm->covered[col * hm->rows + lo] = 1;
	return 0;
}

int
heatmap_add_counters(struct heatmap *hm, double t, const uint64_t *values, unsigned n)
{
	unsigned	i;
	int		sts;

	if (n == 0 || !isfinite(t))
		return -EINVAL;
	if (!hm->have_prev || n != hm->prev_n) {
		if (hm->have_prev)
			hm->resets++;
		return set_baseline(hm, t, values, n);
	}
	if (t <= hm->prev_t)		/* the same fetch again, or out of order */
		return 0;
	for (i = 0; i < n; i++) {
		if (values[i] < hm->prev[i]) {	/* PMDA restarted: counters reset */
			hm->resets++;
			return set_baseline(hm, t, values, n);
		}
	}
	if (t - hm->prev_t > 1.05)
		hm->long_deltas++;
	for (i = 0; i < n; i++) {
		sts = add_slice(hm, slice_second(t, i, n), i, n, values[i] - hm->prev[i]);
		if (sts < 0)
			return sts;
	}
	return set_baseline(hm, t, values, n);
}

/* ---- summaries and ranges ---- */

uint64_t
heatmap_max_cell(const struct heatmap *hm)
{
	uint64_t	m = 0;
	size_t		i;

	for (i = 0; i < hm->ncols * hm->rows; i++)
		if (hm->cells[i] > m)
			m = hm->cells[i];
	return m;
}

uint64_t
heatmap_total(const struct heatmap *hm)
{
	uint64_t	t = 0;
	size_t		i;

	for (i = 0; i < hm->ncols * hm->rows; i++)
		t += hm->cells[i];
	return t;
}
