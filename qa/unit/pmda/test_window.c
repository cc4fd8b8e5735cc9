/*
 * test_window - the per-process window publishes exactly the last
 * interval's folded lines, keeps counters cumulative, lists a process
 * only for a few drains after its last sample, keeps a reused PID's
 * processes apart and expires only processes that are gone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "pipeline/lifetime.h"
#include "pipeline/window.h"

/* a PID no process can have (above pid_max's ceiling of 2^22) */
#define DEAD_PID	((pid_t)5000000)

static void
test_publish_and_counters(void)
{
	struct stack_window		*w = window_new(60);
	struct window_proc *const	*procs;
	struct window_proc		*p;
	pid_t				self = getpid();
	char				want[64];

	CHECK_INT(window_add(w, self, 0, "app", "worker", "main;f", 3), 0);
	CHECK_INT(window_add(w, self, 0, "app", "app", "main;g;[k] h", 2), 0);
	CHECK_INT(window_add(w, DEAD_PID, 0, "gone", "gone", "x", 1), 0);
	/* nothing is visible before the interval is published */
	CHECK_INT(window_procs(w, &procs), 0);
	window_publish(w, NULL, 100);
	CHECK_INT(window_procs(w, &procs), 2);
	CHECK_INT(procs[0]->inst < procs[1]->inst, 1);	/* instance order */
	p = window_lookup(w, self);
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->folded, "app;[t] worker;main;f 3\napp;[t] app;main;g;[k] h 2\n");
		CHECK_INT(p->samples, 5);
		snprintf(want, sizeof(want), "%d app", (int)self);
		CHECK_STR(p->instname, want);
	}
	/* next interval: one new line, counters add up, text is replaced */
	CHECK_INT(window_add(w, self, 0, "app", "worker", "main;f", 4), 0);
	window_publish(w, NULL, 101);
	p = window_lookup(w, self);
	if (p) {
		CHECK_STR(p->folded, "app;[t] worker;main;f 4\n");
		CHECK_INT(p->samples, 9);
	}
	/* an interval without samples leaves an empty string, counter kept */
	window_publish(w, NULL, 102);
	p = window_lookup(w, self);
	if (p) {
		CHECK_STR(p->folded, "");
		CHECK_INT(p->samples, 9);
	}
	CHECK_INT(window_total_samples(w), 10);

	/* the dead process goes after 60 s without samples; we stay */
	window_publish(w, NULL, 159);
	CHECK(window_lookup(w, DEAD_PID) != NULL);
	window_publish(w, NULL, 161);
	CHECK(window_lookup(w, DEAD_PID) == NULL);
	CHECK(window_lookup(w, self) != NULL);
	CHECK_INT(window_procs(w, &procs), 1);
	/* even a live process goes after ten times the expiry */
	window_publish(w, NULL, 101 + 600);
	CHECK(window_lookup(w, self) == NULL);
	window_free(w);
}

static void
test_names(void)
{
	struct stack_window	*w = window_new(60);
	struct window_proc	*p;

	/* an exec renames the process: instance name follows */
	window_add(w, 4242, 0, "before", "t", "a", 1);
	window_add(w, 4242, 0, "after", "t", "a", 1);
	window_publish(w, NULL, 1);
	p = window_lookup(w, 4242);
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->instname, "4242 after");
		CHECK_STR(p->folded, "before;[t] t;a 1\nafter;[t] t;a 1\n");
	}
	window_free(w);
}

/* Two processes under one PID: two instances, two counters, neither going
 * back; the old one goes once the new one is sampled, though the PID lives. */
static void
test_reuse(void)
{
	struct stack_window	*w = window_new(60);
	struct lifetimes	*lives = lifetimes_new();
	struct window_proc	*old, *young;
	pid_t			self = getpid();
	unsigned		g0, g1;
	char			want[64];

	CHECK(w != NULL && lives != NULL);
	CHECK_INT(lifetimes_gen(lives, self, 1000, 10, &g0), 0);
	CHECK_INT(window_add(w, self, g0, "bash", "bash", "main;a", 22), 0);
	window_publish(w, lives, 10);
	CHECK_INT(lifetimes_gen(lives, self, 2000, 11, &g1), 0);
	CHECK_INT(g1, g0 + 1);
	CHECK_INT(window_add(w, self, g1, "bash", "bash", "main;a", 1), 0);
	window_publish(w, lives, 11);
	old = window_lookup(w, lifetime_inst(self, g0));
	young = window_lookup(w, lifetime_inst(self, g1));
	CHECK(old != NULL && young != NULL && old != young);
	if (old && young) {
		CHECK_INT(old->samples, 22);
		CHECK_INT(young->samples, 1);
		snprintf(want, sizeof(want), "%d bash", (int)self);
		CHECK_STR(old->instname, want);
		snprintf(want, sizeof(want), "%d.1 bash", (int)self);
		CHECK_STR(young->instname, want);
		CHECK_INT(young->inst, (int)self + (1 << LIFETIME_PID_BITS));
	}
	/* the old process is gone (its PID is the new one's): expired after
	 * 60 s; the new one, sampled, stays */
	CHECK_INT(window_add(w, self, g1, "bash", "bash", "main;a", 1), 0);
	window_publish(w, lives, 70);
	CHECK(window_lookup(w, lifetime_inst(self, g0)) == NULL);
	young = window_lookup(w, lifetime_inst(self, g1));
	CHECK(young != NULL);
	if (young)
		CHECK_INT(young->samples, 2);
	lifetimes_free(lives);
	window_free(w);
}

/* Listed for WINDOW_SHOW_DRAINS drains after a sample, then only kept: a
 * process sampled again is listed with its counter where it was. */
static void
test_shown(void)
{
	struct stack_window		*w = window_new(60);
	struct window_proc *const	*procs;
	struct window_proc		*p;
	pid_t				self = getpid();
	int				i;

	CHECK_INT(window_add(w, self, 0, "app", "app", "main", 3), 0);
	for (i = 0; i < WINDOW_SHOW_DRAINS; i++) {
		window_publish(w, NULL, 100 + i);
		CHECK_INT(window_procs(w, &procs), 1);
	}
	window_publish(w, NULL, 100 + i);
	CHECK_INT(window_procs(w, &procs), 0);
	CHECK(window_lookup(w, self) != NULL);
	CHECK_INT(window_add(w, self, 0, "app", "app", "main", 2), 0);
	window_publish(w, NULL, 101 + i);
	CHECK_INT(window_procs(w, &procs), 1);
	p = window_lookup(w, self);
	if (p)
		CHECK_INT(p->samples, 5);
	window_free(w);
}

int
main(void)
{
	test_publish_and_counters();
	test_names();
	test_reuse();
	test_shown();
	return unit_report("test_window");
}
