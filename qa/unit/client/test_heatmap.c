/*
 * test_heatmap.c - the heat map's data model: counter deltas to cells,
 * resets, re-binning, coverage, per-second stacks and range merging.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "profile/heatmap.h"

static void
set_all(uint64_t *v, unsigned n, uint64_t x)
{
	unsigned i;

	for (i = 0; i < n; i++)
		v[i] = x;
}

/* A fetch at t = S + 0.5 splits slices: those before the half second were
 * counted in second S, the later ones in second S-1. */
static void
test_delta_splits_at_fetch_offset(void)
{
	struct heatmap	hm;
	uint64_t	v[50];
	unsigned	i;

	CHECK_INT(heatmap_init(&hm, 50), 0);
	set_all(v, 50, 100);
	CHECK_INT(heatmap_add_counters(&hm, 1000.5, v, 50), 0);
	CHECK_INT(hm.ncols, 0);			/* baseline only */
	for (i = 0; i < 50; i++)
		v[i] = 100 + i + 1;		/* slice i got i+1 samples */
	CHECK_INT(heatmap_add_counters(&hm, 1001.5, v, 50), 0);
	CHECK_INT(hm.first_sec, 1000);
	CHECK_INT(hm.ncols, 2);
	for (i = 0; i < 25; i++) {
		CHECK_INT(heatmap_cell(&hm, 1, i), i + 1);	/* second 1001 */
		CHECK(heatmap_cell_covered(&hm, 1, i));
		CHECK(!heatmap_cell_covered(&hm, 0, i));
	}
	for (i = 25; i < 50; i++) {
		CHECK_INT(heatmap_cell(&hm, 0, i), i + 1);	/* second 1000 */
		CHECK(heatmap_cell_covered(&hm, 0, i));
		CHECK(!heatmap_cell_covered(&hm, 1, i));
	}
	CHECK_INT(heatmap_total(&hm), 50 * 51 / 2);
	CHECK_INT(heatmap_max_cell(&hm), 50);
	heatmap_free(&hm);
}

/* Counters current as of just after a second boundary: the whole delta
 * is the previous second, one column per fetch. */
static void
test_aligned_fetches_give_whole_columns(void)
{
	struct heatmap	hm;
	uint64_t	v[50] = { 0 };
	int		s;

	heatmap_init(&hm, 50);
	heatmap_add_counters(&hm, 2000.001, v, 50);
	for (s = 1; s <= 3; s++) {
		v[0] += 10 * s;		/* burst in the first slice */
		v[49] += 1;
		CHECK_INT(heatmap_add_counters(&hm, 2000.001 + s, v, 50), 0);
	}
	CHECK_INT(hm.first_sec, 2000);
	CHECK_INT(hm.ncols, 3);
	for (s = 0; s < 3; s++) {
		CHECK_INT(heatmap_cell(&hm, s, 0), 10 * (s + 1));
		CHECK_INT(heatmap_cell(&hm, s, 49), 1);
		CHECK_INT(heatmap_cell(&hm, s, 20), 0);
		CHECK(heatmap_cell_covered(&hm, s, 20));
	}
	CHECK_INT(hm.resets, 0);
	CHECK_INT(hm.long_deltas, 0);
	heatmap_free(&hm);
}

static void
test_reset_and_slice_change_rebaseline(void)
{
	struct heatmap	hm;
	uint64_t	v[100];

	heatmap_init(&hm, 50);
	set_all(v, 50, 500);
	heatmap_add_counters(&hm, 10.0, v, 50);
	v[3] = 7;			/* PMDA restarted: went backwards */
	CHECK_INT(heatmap_add_counters(&hm, 11.0, v, 50), 0);
	CHECK_INT(hm.resets, 1);
	CHECK_INT(heatmap_total(&hm), 0);
	v[3] = 9;			/* the new baseline is used */
	CHECK_INT(heatmap_add_counters(&hm, 12.0, v, 50), 0);
	CHECK_INT(heatmap_total(&hm), 2);
	set_all(v, 100, 0);		/* slice count changed */
	CHECK_INT(heatmap_add_counters(&hm, 13.0, v, 100), 0);
	CHECK_INT(hm.resets, 2);
	CHECK_INT(heatmap_total(&hm), 2);
	/* the same timestamp again (archive duplicate) or older: ignored */
	v[0] = 5;
	CHECK_INT(heatmap_add_counters(&hm, 13.0, v, 100), 0);
	CHECK_INT(heatmap_add_counters(&hm, 12.5, v, 100), 0);
	CHECK_INT(heatmap_total(&hm), 2);
	CHECK_INT(heatmap_add_counters(&hm, 13.0, v, 0), -EINVAL);
	heatmap_free(&hm);
}

/* 100 source slices onto 50 rows: pairs of slices share a row. */
static void
test_rebinning(void)
{
	struct heatmap	hm;
	uint64_t	v[100] = { 0 };

	heatmap_init(&hm, 50);
	heatmap_add_counters(&hm, 100.0001, v, 100);
	v[0] = 3;
	v[1] = 4;
	v[99] = 5;
	heatmap_add_counters(&hm, 101.0001, v, 100);
	CHECK_INT(heatmap_cell(&hm, 0, 0), 7);
	CHECK_INT(heatmap_cell(&hm, 0, 49), 5);
	/* and 10 coarse slices onto 50 rows: every row covered */
	heatmap_free(&hm);
	heatmap_init(&hm, 50);
	memset(v, 0, sizeof(v));
	heatmap_add_counters(&hm, 100.0001, v, 10);
	v[0] = 8;
	heatmap_add_counters(&hm, 101.0001, v, 10);
	CHECK_INT(heatmap_cell(&hm, 0, 2), 8);		/* midpoint of slice 0 */
	CHECK(heatmap_cell_covered(&hm, 0, 0));
	CHECK(heatmap_cell_covered(&hm, 0, 4));
	CHECK(heatmap_cell_covered(&hm, 0, 49));
	heatmap_free(&hm);
}

/* Fetches 3 s apart: nothing is lost, the counts land in one column and
 * the earlier seconds stay "no data". */
static void
test_long_delta_keeps_counts(void)
{
	struct heatmap	hm;
	uint64_t	v[50] = { 0 };

	heatmap_init(&hm, 50);
	heatmap_add_counters(&hm, 50.0001, v, 50);
	v[5] = 30;
	CHECK_INT(heatmap_add_counters(&hm, 53.0001, v, 50), 0);
	CHECK_INT(hm.long_deltas, 1);
	CHECK_INT(heatmap_total(&hm), 30);
	CHECK_INT(heatmap_cell(&hm, hm.ncols - 1, 5), 30);
	CHECK_INT(hm.first_sec + (int64_t)hm.ncols - 1, 52);
	heatmap_free(&hm);
}

static void
test_columns_grow_both_ways(void)
{
	struct heatmap	hm;
	size_t		c;

	heatmap_init(&hm, 50);
	CHECK_INT(heatmap_add_cell(&hm, 500, 1, 2), 0);
	CHECK_INT(heatmap_add_cell(&hm, 497, 2, 3), 0);
	CHECK_INT(heatmap_add_cell(&hm, 600, 3, 4), 0);
	CHECK_INT(hm.first_sec, 497);
	CHECK_INT(hm.ncols, 104);
	CHECK_INT(heatmap_cell(&hm, 0, 2), 3);
	CHECK_INT(heatmap_cell(&hm, 3, 1), 2);
	CHECK_INT(heatmap_cell(&hm, 103, 3), 4);
	for (c = 4; c < 103; c++)
		CHECK(!heatmap_cell_covered(&hm, c, 0));
	CHECK_INT(heatmap_add_cell(&hm, 600, 50, 1), -EINVAL);
	/* a bogus timestamp cannot allocate without bound */
	CHECK_INT(heatmap_add_cell(&hm, 600 + 100000000LL, 0, 1), -E2BIG);
	CHECK_INT(heatmap_add_cell(&hm, -100000000LL, 0, 1), -E2BIG);
	CHECK_INT(hm.ncols, 104);
	CHECK_INT(heatmap_total(&hm), 9);
	CHECK_INT(heatmap_cover_range(&hm, 490, 700), 0);
	CHECK_INT(hm.first_sec, 490);
	CHECK_INT(hm.ncols, 211);
	CHECK_INT(heatmap_total(&hm), 9);
	heatmap_free(&hm);
	CHECK_INT(heatmap_init(&hm, 0), -EINVAL);
	CHECK_INT(heatmap_init(&hm, HEATMAP_MAX_ROWS + 1), -EINVAL);
}

struct collected {
	char	lines[16][128];
	int	n;
};

static int
collect(const char *const *path, size_t n, uint64_t count, void *arg)
{
	struct collected *c = arg;
	char	*p = c->lines[c->n];
	size_t	i;

	p[0] = '\0';
	for (i = 0; i < n; i++) {
		strcat(p, path[i]);
		strcat(p, i + 1 < n ? ";" : " ");
	}
	sprintf(p + strlen(p), "%llu", (unsigned long long)count);
	c->n++;
	return 0;
}

static void
test_stacks_per_second_and_ranges(void)
{
	struct heatmap		hm;
	struct collected	c;
	const char		*path[] = { "burst", "[t] burst", "main", "burn_burst" };

	heatmap_init(&hm, 50);
	CHECK_INT(heatmap_add_folded(&hm, 10, "app;[t] app;main;work", 5), 0);
	CHECK_INT(heatmap_add_folded(&hm, 11, "app;[t] app;main;work", 7), 0);
	CHECK_INT(heatmap_add_folded(&hm, 11, "app;[t] app;main", 1), 0);
	CHECK_INT(heatmap_add_stack(&hm, 12, path, 4, 40), 0);
	CHECK_INT(heatmap_add_folded(&hm, 12, "burst;[t] burst;main;burn_burst", 2), 0);
	CHECK_INT(heatmap_add_folded(&hm, 13, "app;[t] app;main;work", 3), 0);
	CHECK_INT(heatmap_add_folded(&hm, 13, "", 3), -EINVAL);
	CHECK_INT(heatmap_add_stack(&hm, 13, path, 0, 3), -EINVAL);
	heatmap_finish(&hm);
	CHECK_INT(hm.stacks[2].n, 1);		/* the two bursts merged */
	CHECK_INT(hm.stacks[2].v[0].count, 42);
	CHECK_INT(heatmap_nframes(&hm), 7);		/* frames interned once */
	CHECK_INT(heatmap_stack_total(&hm), 58);

	memset(&c, 0, sizeof(c));
	CHECK_INT(heatmap_range_stacks(&hm, 0, 1, collect, &c), 2);
	CHECK_STR(c.lines[0], "app;[t] app;main 1");		/* parents first */
	CHECK_STR(c.lines[1], "app;[t] app;main;work 12");

	memset(&c, 0, sizeof(c));
	CHECK_INT(heatmap_range_stacks(&hm, 2, 2, collect, &c), 1);
	CHECK_STR(c.lines[0], "burst;[t] burst;main;burn_burst 42");

	memset(&c, 0, sizeof(c));
	CHECK_INT(heatmap_range_stacks(&hm, 3, 99, collect, &c), 1);
	CHECK_STR(c.lines[0], "app;[t] app;main;work 3");
	heatmap_free(&hm);
}

/* A record drained at t covers (t - interval, t]: it belongs to the second
 * holding the middle of that. */
static void
test_record_second(void)
{
	CHECK_INT(heatmap_record_second(1000.0, 1.0), 999);
	CHECK_INT(heatmap_record_second(1000.4, 1.0), 999);
	CHECK_INT(heatmap_record_second(1000.6, 1.0), 1000);
	CHECK_INT(heatmap_record_second(1000.3, 0.5), 1000);
}

static int
count_only(const char *const *path, size_t n, uint64_t count, void *arg)
{
	(void)path;
	(void)n;
	*(uint64_t *)arg += count;
	return 0;
}

/* Many distinct stacks: tables grow, nodes keep parents before children. */
static void
test_many_stacks(void)
{
	struct heatmap	hm;
	char		line[64];
	size_t		i;
	uint64_t	sum = 0;
	int		ok = 1;

	heatmap_init(&hm, 50);
	for (i = 0; i < 5000; i++) {
		snprintf(line, sizeof(line), "p%zu;[t] t;f%zu;g%zu", i % 7, i % 100, i);
		if (heatmap_add_folded(&hm, (int64_t)(i % 60), line, 1) != 0)
			ok = 0;
	}
	CHECK(ok);
	heatmap_finish(&hm);
	CHECK_INT(heatmap_stack_total(&hm), 5000);
	for (i = 1; i < hm.nnodes; i++)
		if (hm.nodes[i].parent >= i)
			ok = 0;
	CHECK(ok);
	CHECK_INT(heatmap_range_stacks(&hm, 0, 59, count_only, &sum), 5000);
	CHECK_INT(sum, 5000);
	heatmap_free(&hm);
}

/* -S/-T: columns of the whole window exist, nothing outside is kept, and a
 * baseline fetch before the window adds nothing. */
static void
test_window(void)
{
	struct heatmap	hm;
	uint64_t	v[50] = { 0 };

	heatmap_init(&hm, 50);
	CHECK_INT(heatmap_set_window(&hm, 100, 109), 0);
	CHECK_INT(hm.ncols, 10);
	CHECK_INT(heatmap_total(&hm), 0);
	CHECK(!heatmap_cell_covered(&hm, 0, 0));
	v[0] = 5;
	CHECK_INT(heatmap_counters_baseline(&hm, 99.9, v, 50), 0);
	v[0] = 7;
	v[49] = 1;			/* slice 49 of 99.9 -> second 99: outside */
	CHECK_INT(heatmap_add_counters(&hm, 100.9, v, 50), 0);
	CHECK_INT(heatmap_cell(&hm, 0, 0), 2);
	CHECK_INT(heatmap_total(&hm), 2);
	CHECK_INT(heatmap_add_cell(&hm, 110, 0, 9), 0);
	CHECK_INT(heatmap_add_folded(&hm, 95, "a;b", 3), 0);
	CHECK_INT(heatmap_add_folded(&hm, 109, "a;b", 4), 0);
	heatmap_finish(&hm);
	CHECK_INT(hm.ncols, 10);
	CHECK_INT(heatmap_total(&hm), 2);
	CHECK_INT(heatmap_stack_total(&hm), 4);
	CHECK_INT(heatmap_set_window(&hm, 5, 4), -EINVAL);
	CHECK_INT(heatmap_set_window(&hm, 0, 100000000), -E2BIG);
	heatmap_free(&hm);
}

/* The whole-stack cache: the same stack as a path or as folded text is one
 * node; prefixes, extensions and a frame holding ';' are not confused. */
static void
test_stack_cache(void)
{
	struct heatmap	hm;
	const char	*abc[] = { "a", "b", "c" }, *semi[] = { "a;b", "c" };
	size_t		before;

	heatmap_init(&hm, 50);
	CHECK_INT(heatmap_add_folded(&hm, 1, "a;b;c", 1), 0);
	before = hm.nnodes;
	CHECK_INT(heatmap_add_stack(&hm, 1, abc, 3, 2), 0);
	CHECK_INT(heatmap_add_folded(&hm, 2, "a;b;c", 4), 0);
	CHECK_INT(hm.nnodes, before);
	CHECK_INT(heatmap_add_folded(&hm, 2, "a;b", 8), 0);	/* a prefix: its own node */
	CHECK_INT(heatmap_add_folded(&hm, 2, "a;b;c;d", 16), 0);
	CHECK_INT(heatmap_add_stack(&hm, 2, semi, 2, 32), 0);	/* frame "a;b" then "c" */
	CHECK_INT(heatmap_add_folded(&hm, 2, "b;c", 64), 0);
	CHECK_INT(heatmap_add_folded(&hm, 2, "xa;b;c", 128), 0);
	heatmap_finish(&hm);
	CHECK_INT(hm.stacks[0].n, 1);
	CHECK_INT(hm.stacks[0].v[0].count, 3);
	CHECK_INT(hm.stacks[1].n, 6);
	CHECK_INT(hm.stacks[1].v[1].node, hm.stacks[0].v[0].node);	/* a;b;c after a;b */
	CHECK_INT(hm.stacks[1].v[1].count, 4);
	CHECK_INT(heatmap_stack_total(&hm), 255);
	CHECK_INT(heatmap_nframes(&hm), 6);	/* a b c d "a;b" xa */
	heatmap_free(&hm);
}

int
main(void)
{
	test_stack_cache();
	test_window();
	test_delta_splits_at_fetch_offset();
	test_aligned_fetches_give_whole_columns();
	test_reset_and_slice_change_rebaseline();
	test_rebinning();
	test_long_delta_keeps_counts();
	test_columns_grow_both_ways();
	test_stacks_per_second_and_ranges();
	test_record_second();
	test_many_stacks();
	return unit_report("test_heatmap");
}
