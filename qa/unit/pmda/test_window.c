/*
 * test_window - the per-process window publishes exactly the last
 * interval's folded lines, keeps counters cumulative and expires only
 * processes that are gone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "agent/window.h"

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

	CHECK_INT(window_add(w, self, "app", "worker", "main;f", 3), 0);
	CHECK_INT(window_add(w, self, "app", "app", "main;g;[k] h", 2), 0);
	CHECK_INT(window_add(w, DEAD_PID, "gone", "gone", "x", 1), 0);
	/* nothing is visible before the interval is published */
	CHECK_INT(window_procs(w, &procs), 0);
	window_publish(w, 100);
	CHECK_INT(window_procs(w, &procs), 2);
	CHECK_INT(procs[0]->pid < procs[1]->pid, 1);	/* PID order */
	p = window_lookup(w, self);
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->folded, "app;[t] worker;main;f 3\napp;[t] app;main;g;[k] h 2\n");
		CHECK_INT(p->samples, 5);
		snprintf(want, sizeof(want), "%d app", (int)self);
		CHECK_STR(p->instname, want);
	}
	/* next interval: one new line, counters add up, text is replaced */
	CHECK_INT(window_add(w, self, "app", "worker", "main;f", 4), 0);
	window_publish(w, 101);
	p = window_lookup(w, self);
	if (p) {
		CHECK_STR(p->folded, "app;[t] worker;main;f 4\n");
		CHECK_INT(p->samples, 9);
	}
	/* an interval without samples leaves an empty string, counter kept */
	window_publish(w, 102);
	p = window_lookup(w, self);
	if (p) {
		CHECK_STR(p->folded, "");
		CHECK_INT(p->samples, 9);
	}
	CHECK_INT(window_total_samples(w), 10);

	/* the dead process goes after 60 s without samples; we stay */
	window_publish(w, 159);
	CHECK(window_lookup(w, DEAD_PID) != NULL);
	window_publish(w, 161);
	CHECK(window_lookup(w, DEAD_PID) == NULL);
	CHECK(window_lookup(w, self) != NULL);
	CHECK_INT(window_procs(w, &procs), 1);
	/* even a live process goes after ten times the expiry */
	window_publish(w, 101 + 600);
	CHECK(window_lookup(w, self) == NULL);
	window_free(w);
}

static void
test_names(void)
{
	struct stack_window	*w = window_new(60);
	struct window_proc	*p;

	/* an exec renames the process: instance name follows */
	window_add(w, 4242, "before", "t", "a", 1);
	window_add(w, 4242, "after", "t", "a", 1);
	window_publish(w, 1);
	p = window_lookup(w, 4242);
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->instname, "4242 after");
		CHECK_STR(p->folded, "before;[t] t;a 1\nafter;[t] t;a 1\n");
	}
	window_free(w);
}

int
main(void)
{
	test_publish_and_counters();
	test_names();
	return unit_report("test_window");
}
