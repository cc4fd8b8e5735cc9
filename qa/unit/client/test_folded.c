/*
 * test_folded.c - folded output: one line per node with self samples,
 * sorted bytewise (not in tree order), names that would break the format
 * cleaned, and a round trip folded -> tree -> folded that changes nothing,
 * off-wake stacks (blocked frames, "--", the waker's) included.
 */
#include <stdlib.h>
#include "unit.h"
#include "emit/emit.h"
#include "flame_input.h"

static char *
folded_of(const char *text)
{
	struct flame_tree	*t = tree_from(text);
	struct membuf		out;
	char			*s = NULL;

	membuf_init(&out);
	if (t != NULL && emit_folded(t, &out) == 0)
		s = strdup(out.data ? out.data : "");
	flame_tree_free(t);
	membuf_free(&out);
	return s;
}

static void
check_folded(const char *in, const char *want)
{
	char	*got = folded_of(in);

	CHECK_STR(got, want);
	free(got);
}

static void
test_profile(void)
{
	/* duplicate stacks merge; a node with self samples and children is
	 * its own line; recursion stays as it is */
	check_folded(
		"proc;[t] worker;start;foo;foo;foo 4\n"
		"proc;[t] main;main;foo;bar 2\n"
		"proc;[t] main;main;foo 2\n"
		"proc;[t] main;main;baz 1\n"
		"proc;[t] main;main;foo;bar 1\n",
		"proc;[t] main;main;baz 1\n"
		"proc;[t] main;main;foo 2\n"
		"proc;[t] main;main;foo;bar 3\n"
		"proc;[t] worker;start;foo;foo;foo 4\n");
}

/* Tree order puts "a" before "a!", bytewise order does not ('!' < ';'). */
static void
test_bytewise(void)
{
	check_folded("x;a;b 1\nx;a! 1\nx;A 5\nTotal;[p] x 2\n",
		"Total;[p] x 2\nx;A 5\nx;a! 1\nx;a;b 1\n");
}

/* Several threads under the host view. */
static void
test_host_view(void)
{
	check_folded(
		"Total;[p] nginx;[t] worker;[l] write;[k] ksys_write 3\n"
		"Total;[p] nginx;[t] nginx;[k] do_syscall_64 2\n"
		"Total;[p] redis;[t] redis;[unknown] 0x0000000000001234 1\n",
		"Total;[p] nginx;[t] nginx;[k] do_syscall_64 2\n"
		"Total;[p] nginx;[t] worker;[l] write;[k] ksys_write 3\n"
		"Total;[p] redis;[t] redis;[unknown] 0x0000000000001234 1\n");
}

/* A ';' inside a name becomes ',' and a newline or invalid byte U+FFFD,
 * so each output line still splits into the frames it came from. */
static void
test_hostile_names(void)
{
	struct flame_tree	*t = flame_tree_new();
	const char		*path[] = { "p", "a;b", "new\nline", "bad\xff" };
	struct membuf		out;

	membuf_init(&out);
	CHECK_INT(flame_tree_add(t, path, 4, 7, 70), 0);
	CHECK_INT(flame_tree_finish(t), 0);
	CHECK_INT(emit_folded(t, &out), 0);
	CHECK_STR(out.data, "p;a,b;new\xef\xbf\xbdline;bad\xef\xbf\xbd 7\n");
	membuf_free(&out);
	flame_tree_free(t);
}

static void
test_round_trip(void)
{
	const char	*in = "Total;[p] a;[t] a;x;y 5\nTotal;[p] a;[t] b;x 2\n"
			      "Total;[p] b;[t] b 1\nTotal;[p] b;[t] b;[k] z 7\n";
	char		*once = folded_of(in);
	char		*twice = once ? folded_of(once) : NULL;

	CHECK_STR(once, in);
	CHECK_STR(twice, in);
	free(once);
	free(twice);
}

/* Off-wake: the separator is a frame like any other; the same blocked
 * stack and waker merge, another waker branches at the separator, and the
 * text comes back as it went in. */
static void
test_off_wake(void)
{
	const char	*in =
		"app;[t] consumer;consume;[k] schedule;--;[k] try_to_wake_up;produce;producer 5\n"
		"app;[t] consumer;consume;[k] schedule;--;[k] try_to_wake_up;swapper/1 2\n"
		"app;[t] consumer;consume;[k] schedule;--;[k] try_to_wake_up;produce;producer 3\n";
	const char	*want =
		"app;[t] consumer;consume;[k] schedule;--;[k] try_to_wake_up;produce;producer 8\n"
		"app;[t] consumer;consume;[k] schedule;--;[k] try_to_wake_up;swapper/1 2\n";
	char		*once = folded_of(in);
	char		*twice = once ? folded_of(once) : NULL;

	CHECK_STR(once, want);
	CHECK_STR(twice, want);
	free(once);
	free(twice);
}

static void
test_empty(void)
{
	check_folded("", "");
}

int
main(void)
{
	test_profile();
	test_bytewise();
	test_host_view();
	test_hostile_names();
	test_round_trip();
	test_off_wake();
	test_empty();
	return unit_report("test_folded");
}
