/*
 * test_heatmaps.c - heat maps by host as the sources feed them: counters
 * and records of a live window taken as one profile per host, the
 * counters' baseline carried into the next window (no sample lost at a
 * cut), an archive window's columns fixed to its range, and the stacks
 * filtered by the selection while the counters are not.
 */
#include <math.h>
#include <stdlib.h>
#include "unit.h"
#include "profile/heatmap.h"
#include "profile/heatmaps.h"

#define SLICES	4

/* Counters of host at time t, every slice at value v. */
static int
counters(struct heatmaps *h, const char *host, double t, uint64_t v, bool restart)
{
	uint64_t		vals[SLICES] = { v, v, v, v };
	struct heat_counters	c = { host, t, vals, SLICES, 1.0, restart };

	return heatmaps_counters(h, &c);
}

static int
record(struct heatmaps *h, const char *host, const char *process, double t, uint64_t count)
{
	struct stack_sample	s = { host, process, "main", "f;g", "on-cpu", 7, 7, count,
				      count * 10101, t, 0, NULL };

	return heatmaps_add(h, &s);
}

static void
test_live_windows(void)
{
	struct heatmaps	*h = heatmaps_new(NULL);
	struct window	w = { NULL, 1000.0, INFINITY };
	struct profile	*p = NULL;
	size_t		n = 0;

	CHECK_INT(heatmaps_begin(h, &w), 0);
	CHECK_INT(counters(h, "b", 1000.2, 10, false), 0);	/* baselines */
	CHECK_INT(counters(h, "a", 1000.2, 10, false), 0);
	CHECK_INT(counters(h, "a", 1001.2, 12, false), 0);	/* +2 per slice */
	CHECK_INT(record(h, "a", "app", 1001.1, 5), 0);
	CHECK_INT(counters(h, "a", 1002.2, 15, false), 0);	/* +3 per slice */
	w.end = 1002.5;
	CHECK_INT(heatmaps_take(h, &w, &p, &n), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_STR(p[0].host, "a");			/* sorted by host */
		CHECK_INT(p[0].kind, PROFILE_HEATMAP);
		CHECK_STR(p[0].name, "Total");
		CHECK(p[0].start == 1000.0 && p[0].end == 1002.5);
		CHECK_INT(p[0].samples, 4 * 5);
		CHECK_INT(p[0].stack_samples, 5);
		CHECK_INT(p[0].heatmap->rows, SLICES);
		CHECK_INT(p[1].samples, 0);			/* b: a baseline only */
	}
	profiles_free(p, n);
	/* the next window starts from the last counters: +1 per slice counts */
	w.start = 1002.5;
	w.end = INFINITY;
	CHECK_INT(heatmaps_begin(h, &w), 0);
	CHECK_INT(counters(h, "a", 1003.2, 16, false), 0);
	w.end = 1003.5;
	CHECK_INT(heatmaps_take(h, &w, &p, &n), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_INT(p[0].samples, 4);
		CHECK(p[0].start == 1002.5);
	}
	profiles_free(p, n);
	heatmaps_free(h);
}

static void
test_archive_window(void)
{
	struct heatmaps	*h = heatmaps_new(NULL);
	struct window	w = { "arch", 100.0, 110.0 };
	struct profile	*p = NULL;
	size_t		n = 0;

	CHECK_INT(heatmaps_begin(h, &w), 0);
	CHECK_INT(counters(h, "arch", 98.2, 100, true), 0);	/* before: a baseline */
	CHECK_INT(counters(h, "arch", 99.2, 200, true), 0);
	CHECK_INT(counters(h, "arch", 100.2, 201, false), 0);
	CHECK_INT(record(h, "arch", "app", 99.0, 9), 0);	/* covers second 98: out */
	CHECK_INT(record(h, "arch", "app", 110.3, 4), 0);	/* covers second 109: in */
	CHECK_INT(record(h, "arch", "app", 111.2, 2), 0);	/* second 110: out */
	CHECK_INT(heatmaps_take(h, &w, &p, &n), 0);
	CHECK_INT(n, 1);
	if (n == 1) {
		CHECK_INT(p[0].heatmap->ncols, 10);		/* seconds 100..109 exactly */
		CHECK_INT(p[0].heatmap->first_sec, 100);
		CHECK_INT(p[0].samples, 1);	/* fetched at 100.2: only slice 0 is in second 100 */
		CHECK_INT(p[0].stack_samples, 4);
		CHECK(p[0].start == 100.0 && p[0].end == 110.0);
	}
	profiles_free(p, n);
	heatmaps_free(h);
}

/* --process applies to the stacks; the counters are the PMDA's own. */
static void
test_filter(void)
{
	struct select_options	o = { .process = "app" };
	char			err[128];
	struct selection	*sel = selection_new(&o, err, sizeof(err));
	struct heatmaps		*h = heatmaps_new(sel);
	struct window		w = { NULL, 10.0, INFINITY };
	struct profile		*p = NULL;
	size_t			n = 0;

	CHECK_INT(heatmaps_begin(h, &w), 0);
	CHECK_INT(record(h, "x", "app", 11.0, 3), 0);
	CHECK_INT(record(h, "x", "other", 11.0, 30), 0);
	w.end = 12.0;
	CHECK_INT(heatmaps_take(h, &w, &p, &n), 0);
	CHECK_INT(n, 1);
	if (n == 1) {
		CHECK_INT(p[0].stack_samples, 3);
		CHECK_INT(p[0].heatmap->rows, 50);		/* stacks first: 50 slices */
	}
	profiles_free(p, n);
	heatmaps_free(h);
	selection_free(sel);
}

int
main(void)
{
	test_live_windows();
	test_archive_window();
	test_filter();
	return unit_report("test_heatmaps");
}
