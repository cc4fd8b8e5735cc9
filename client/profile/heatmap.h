/*
 * heatmap.h - the data of a FlameScope-style subsecond-offset heat map:
 * a matrix of seconds (columns) x slices of the second (rows) holding sample
 * counts, and, beside it, the stacks sampled in each second so that a
 * selected range of columns can be shown as a flame graph.
 *
 * Counts come from the cumulative per-slice counters stackprof.heatmap.oncpu
 * (heatmap_add_counters: deltas between consecutive fetches); stacks come
 * from the stackprof.oncpu.stacks event records (heatmap_add_stack).
 * Columns are wall-clock seconds (UTC epoch seconds), row 0 is the first
 * slice of the second.  Cells no fetch covered are "no data", which is not
 * the same as zero samples.
 */
#ifndef HEATMAP_H
#define HEATMAP_H

#include <stddef.h>
#include <stdint.h>
#include "lib/hash.h"
#include "lib/intern.h"

/* Bound on rows x columns, so a bogus timestamp cannot allocate gigabytes:
 * one day at 50 slices, or an hour at 1000. */
#define HEATMAP_MAX_CELLS	(86400u * 50u)
#define HEATMAP_MAX_ROWS	1000u

/* One (stack, count) of a second; node indexes the stack trie. */
struct heatmap_entry {
	uint32_t	node;
	uint64_t	count;
};

struct heatmap_column_stacks {
	struct heatmap_entry	*v;
	size_t			n, cap;
	size_t			merged;		/* v[0..merged) sorted by node, unique */
};

/* A stack is a path in a trie of frames: node i has a parent node (0 is the
 * virtual root above all processes) and a frame.  Parents always have lower
 * indexes than their children, which the SVG's script relies on. */
struct heatmap_node {
	uint32_t	parent;
	uint32_t	frame;
};

struct heatmap {
	unsigned	rows;		/* slices per second */
	int64_t		first_sec;	/* epoch second of column 0 */
	size_t		ncols, cols_cap;
	uint64_t	*cells;		/* ncols * rows, column-major */
	uint8_t		*covered;	/* per cell: some delta covered it */
	struct heatmap_column_stacks *stacks;	/* ncols */

	/* frame names, interned once whatever their place in a stack, and the
	 * DeepFlow type of each where it first appeared (for its colour) */
	struct intern	frames;
	char		*frame_types;
	size_t		frame_types_cap;

	struct heatmap_node *nodes;	/* nodes[0] is the virtual root */
	size_t		nnodes, nodes_cap;
	struct hash_table node_index;	/* (parent, frame) -> node */

	/* whole stacks seen before -> their node: most records repeat a stack
	 * of an earlier second, and one lookup beats one per frame */
	struct hash_table stack_cache;	/* hash of the stack's text -> node */
	char		*join;		/* scratch: a path joined for hashing */
	size_t		join_cap;

	/* when set, cells and stacks outside [win_from, win_to] are dropped */
	int		have_window;
	int64_t		win_from, win_to;

	/* counter state between fetches */
	int		have_prev;
	double		prev_t;
	unsigned	prev_n;
	uint64_t	*prev;
	size_t		prev_cap;

	/* what could not be used, for the user's information */
	size_t		resets;		/* counter went backwards or slice count changed */
	size_t		long_deltas;	/* fetches more than 1 s apart: columns summed */
};

/* rows: slices per second, 1..HEATMAP_MAX_ROWS.  Returns 0 or -EINVAL. */
int heatmap_init(struct heatmap *hm, unsigned rows);
void heatmap_free(struct heatmap *hm);

/*
 * One fetch of the cumulative per-slice counters: values[i] is slice i of n,
 * current as of wall-clock time t (epoch seconds).  The first call, and any
 * call after a reset (a value went down, n changed), only sets the baseline.
 * Between two fetches at most 1 s apart each slice maps to exactly one second
 * (see docs/design.md, "Heat maps"); n may differ from rows (re-binned by the
 * slice's midpoint).  Returns 0, or -ENOMEM / -E2BIG (range too long).
 */
int heatmap_add_counters(struct heatmap *hm, double t, const uint64_t *values, unsigned n);

/* Take values as the baseline for the next delta, adding nothing (fetches
 * before the requested range). */
int heatmap_counters_baseline(struct heatmap *hm, double t, const uint64_t *values, unsigned n);

/*
 * Restrict the heat map to seconds [from_sec, to_sec]: their columns exist
 * (as "no data" until covered) and anything outside is dropped.  0, -EINVAL
 * or -E2BIG (range too long).
 */
int heatmap_set_window(struct heatmap *hm, int64_t from_sec, int64_t to_sec);

/* Add count samples to one cell, marking it covered. */
int heatmap_add_cell(struct heatmap *hm, int64_t sec, unsigned row, uint64_t count);

/*
 * Mark the second sec present with no counts (so an empty range still has
 * columns); used for the requested -S/-T range.
 */
int heatmap_cover_range(struct heatmap *hm, int64_t from_sec, int64_t to_sec);

/* The second a stack record drained at time t over interval seconds belongs
 * to: the one holding the middle of the interval it covers. */
int64_t heatmap_record_second(double t, double interval);

/* Add one stack (path[0] outermost, e.g. the process) sampled count times in
 * second sec.  Returns 0, -EINVAL (empty path) or -ENOMEM / -E2BIG. */
int heatmap_add_stack(struct heatmap *hm, int64_t sec, const char *const *path,
		      size_t n, uint64_t count);
/* The same from a folded line's frames "a;b;c" (no count). */
int heatmap_add_folded(struct heatmap *hm, int64_t sec, const char *frames, uint64_t count);

/* Sort and merge each column's stack entries; call before reading them. */
void heatmap_finish(struct heatmap *hm);

static inline size_t
heatmap_nframes(const struct heatmap *hm)
{
	return hm->frames.count;
}

static inline const char *
heatmap_frame(const struct heatmap *hm, size_t i)
{
	return intern_name(&hm->frames, (uint32_t)i);
}

/* DeepFlow's type letter of frame i (tree.h's function_type). */
static inline char
heatmap_frame_type(const struct heatmap *hm, size_t i)
{
	return hm->frame_types[i];
}

static inline uint64_t
heatmap_cell(const struct heatmap *hm, size_t col, unsigned row)
{
	return hm->cells[col * hm->rows + row];
}

static inline int
heatmap_cell_covered(const struct heatmap *hm, size_t col, unsigned row)
{
	return hm->covered[col * hm->rows + row];
}

/* Largest cell and sum of all cells. */
uint64_t heatmap_max_cell(const struct heatmap *hm);
uint64_t heatmap_total(const struct heatmap *hm);
/* Total stack samples over all columns. */
uint64_t heatmap_stack_total(const struct heatmap *hm);

/*
 * The stacks of columns [col_from, col_to] merged: visit(path, n, count, arg)
 * once per distinct stack, in trie order.  Returns the number of distinct
 * stacks, or -ENOMEM.  Call heatmap_finish() first.
 */
typedef int (*heatmap_visit_fn)(const char *const *path, size_t n, uint64_t count, void *arg);
long heatmap_range_stacks(const struct heatmap *hm, size_t col_from, size_t col_to,
			  heatmap_visit_fn visit, void *arg);

#endif /* HEATMAP_H */
