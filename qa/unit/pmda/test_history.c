/*
 * test_history.c - the stack history's text, client by client: ids
 * defined once per client and again for a new one, drains summed to the
 * client's own fetches, µs written only where the rule does not give
 * them, counts past 2^32, hostile names that cannot break a line, the
 * memory bound's "missed", ids forgotten after ten idle minutes,
 * keyframes that define again what they use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "history/history.h"
#include "history/history_priv.h"
#include "agent/profiles.h"

static struct timeval	when = { 1733011200, 500000 };

static void
drain(struct history *h, time_t now, unsigned hz, const char *comm, const char *stack,
      uint64_t count)
{
	history_begin(h, &when, hz, now);
	history_add(h, 100, 0, 101, comm, "proc", stack, count, profile_value_samples(count, hz));
	history_end(h);
	when.tv_sec++;
}

static const char *
fetch(struct history *h, int ctx)
{
	const char	*t;
	size_t		len;

	CHECK_INT(history_fetch(h, ctx, &t, &len), 0);
	CHECK(t == NULL || strlen(t) == len);
	return t ? t : "(none)";
}

static void
test_defined_once_per_client(void)
{
	when.tv_sec = 1733011200;
	struct history	*h = history_new(profile_value_samples, 1 << 20);

	CHECK_STR(fetch(h, 0), "(none)");	/* the first fetch starts a client */
	drain(h, 1, 99, "main", "a;b", 3);
	CHECK_STR(fetch(h, 0), "drains 1 1733011200.500000 hz 99\n"
		  "t 1 100 101 main\tproc\nf 1 a\nf 2 b\ns 1 1,2\n1 1:3");
	drain(h, 2, 99, "main", "a;b", 1);
	CHECK_STR(fetch(h, 0), "drains 1 1733011201.500000 hz 99\n1 1");
	CHECK_STR(fetch(h, 0), "(none)");
	/* a second client meets id 1 for the first time: defined again */
	CHECK_STR(fetch(h, 1), "(none)");
	drain(h, 3, 99, "main", "a;b", 2);
	CHECK_STR(fetch(h, 1), "drains 1 1733011202.500000 hz 99\n"
		  "t 1 100 101 main\tproc\nf 1 a\nf 2 b\ns 1 1,2\n1 1:2");
	CHECK_STR(fetch(h, 0), "drains 1 1733011202.500000 hz 99\n1 1:2");
	/* a client that ended and a new one with its context: told afresh */
	history_client_end(h, 0);
	CHECK_STR(fetch(h, 0), "(none)");
	drain(h, 4, 99, "main", "a;b", 1);
	CHECK_STR(fetch(h, 0), "drains 1 1733011203.500000 hz 99\n"
		  "t 1 100 101 main\tproc\nf 1 a\nf 2 b\ns 1 1,2\n1 1");
	history_free(h);
}

static void
test_coalesced_and_values(void)
{
	when.tv_sec = 1733011200;
	struct history	*h = history_new(profile_value_samples, 1 << 20);
	uint64_t	big = (UINT64_C(1) << 32) + 7;

	fetch(h, 0);
	drain(h, 1, 99, "main", "a;b", 1);	/* 10101 µs */
	drain(h, 2, 99, "main", "a;b", 1);	/* 10101: 20202 = rule for 2 */
	drain(h, 3, 49, "main", "a;c", big);	/* hz changed below */
	drain(h, 4, 99, "main", "a;c", 1);
	/* a;c: 2^32+7 at 49 Hz + 1 at 99 Hz is not (2^32+8) * 10^6 / 99 */
	CHECK_STR(fetch(h, 0), "drains 4 1733011203.500000 hz 99\n"
		  "t 1 100 101 main\tproc\nf 1 a\nf 2 b\nf 3 c\ns 1 1,2\ns 2 1,3\n"
		  "1 1:2 2:4294967304:87652393948876");
	history_free(h);
}

static void
test_hostile_names(void)
{
	when.tv_sec = 1733011200;
	struct history	*h = history_new(profile_value_samples, 1 << 20);

	fetch(h, 0);
	history_begin(h, &when, 99, 1);
	history_add(h, 7, 0, 8, "a\tb\nc", "p\r", "x;y\nt 9 1 1 evil\tevil", 1, 10101);
	history_end(h);
	CHECK_STR(fetch(h, 0), "drains 1 1733011200.500000 hz 99\n"
		  "t 1 7 8 a?b?c\tp?\nf 1 x\nf 2 y?t 9 1 1 evil?evil\ns 1 1,2\n1 1");
	history_free(h);
	when.tv_sec++;
}

static void
test_bound_and_forgetting(void)
{
	when.tv_sec = 1733011200;
	struct history		*h = history_new(profile_value_samples, 1);	/* keeps ~nothing */
	struct history_stats	st;
	const char		*t;

	fetch(h, 0);
	drain(h, 10, 99, "main", "a", 1);
	drain(h, 11, 99, "main", "a", 1);
	t = fetch(h, 0);
	CHECK(strstr(t, " missed ") != NULL);
	history_get_stats(h, &st);
	CHECK(st.dropped >= 1);
	history_free(h);

	h = history_new(profile_value_samples, 1 << 20);
	fetch(h, 0);
	drain(h, 10, 99, "main", "a", 1);
	fetch(h, 0);
	drain(h, 10 + HISTORY_FORGET_S + 1, 99, "main", "other", 1);
	drain(h, 10 + HISTORY_FORGET_S + 2, 99, "main", "a", 1);
	t = fetch(h, 0);
	/* "a" was idle ten minutes: forgotten, so it comes back as stack 3
	 * of frame 3 ("other" is frame 2, stack 2) */
	CHECK(strstr(t, "\nf 3 a\n") != NULL && strstr(t, "\ns 3 3\n") != NULL);
	history_free(h);
}

/* Beyond HISTORY_SLOTS clients, one is told every definition in every
 * text, each once. */
static void
test_no_slot_left(void)
{
	struct history	*h = history_new(profile_value_samples, 1 << 20);
	int		i;

	when.tv_sec = 1733011200;
	for (i = 0; i <= HISTORY_SLOTS; i++)
		fetch(h, i);
	history_begin(h, &when, 99, 1);
	history_add(h, 1, 0, 1, "m", "p", "a", 1, 10101);
	history_add(h, 1, 0, 2, "m", "p", "a", 1, 10101);
	history_end(h);
	CHECK_STR(fetch(h, HISTORY_SLOTS), "drains 1 1733011200.500000 hz 99\n"
		  "t 1 1 1 m\tp\nt 2 1 2 m\tp\nf 1 a\ns 1 1\n1 1\n2 1");
	when.tv_sec++;
	history_begin(h, &when, 99, 2);
	history_add(h, 1, 0, 1, "m", "p", "a", 1, 10101);
	history_end(h);
	CHECK_STR(fetch(h, HISTORY_SLOTS), "drains 1 1733011201.500000 hz 99\n"
		  "t 1 1 1 m\tp\nf 1 a\ns 1 1\n1 1");
	CHECK_STR(fetch(h, 0), "drains 2 1733011201.500000 hz 99\n"
		  "t 1 1 1 m\tp\nt 2 1 2 m\tp\nf 1 a\ns 1 1\n1 1:2\n2 1");
	history_free(h);
}

/* The last drain as bpftrace-style instances: names, counts, stable ids. */
static void
test_flame(void)
{
	struct history			*h = history_new(profile_value_samples, 1 << 20);
	const struct history_flame	*v;
	int				inst;

	when.tv_sec = 1733011200;
	history_begin(h, &when, 99, 1);
	history_add(h, 7, 0, 8, "worker", "srv", "main;run;[k] sys_read", 3, 30303);
	history_add(h, 7, 0, 9, "w2", "srv", "main", 1, 10101);
	history_end(h);
	CHECK_INT((int)history_flame(h, &v), 2);
	CHECK_STR(v[0].name, "\n    [k] sys_read\n    run\n    main\n    [t] worker 8\n    srv 7\n");
	CHECK_INT((int)v[0].count, 3);
	CHECK_STR(v[1].name, "\n    main\n    [t] w2 9\n    srv 7\n");
	inst = v[0].inst;
	CHECK(v[0].inst != v[1].inst);
	history_begin(h, &when, 99, 2);
	history_add(h, 7, 0, 8, "worker", "srv", "main;run;[k] sys_read", 5, 50505);
	history_end(h);
	CHECK_INT((int)history_flame(h, &v), 1);
	CHECK_INT(v[0].inst, inst);	/* the same pair keeps its id */
	CHECK_INT((int)v[0].count, 5);
	history_begin(h, &when, 99, 3);
	history_end(h);
	CHECK_INT((int)history_flame(h, &v), 0);
	/* the PID's next process: its own pair and name */
	history_begin(h, &when, 99, 4);
	history_add(h, 7, 1, 8, "worker", "srv", "main;run;[k] sys_read", 2, 20202);
	history_end(h);
	CHECK_INT((int)history_flame(h, &v), 1);
	CHECK(v[0].inst != inst);
	CHECK_STR(v[0].name, "\n    [k] sys_read\n    run\n    main\n    [t] worker 8\n    srv 7.1\n");
	history_free(h);
}

/* A reused PID's process is another thread of the history: "PID.GEN". */
static void
test_reused_pid(void)
{
	struct history	*h = history_new(profile_value_samples, 1 << 20);

	when.tv_sec = 1733011200;
	fetch(h, 0);
	history_begin(h, &when, 99, 1);
	history_add(h, 42, 0, 42, "sh", "sh", "a", 22, 222222);
	history_add(h, 42, 1, 42, "sh", "sh", "a", 1, 10101);
	history_end(h);
	CHECK_STR(fetch(h, 0), "drains 1 1733011200.500000 hz 99\n"
		  "t 1 42 42 sh\tsh\nt 2 42.1 42 sh\tsh\nf 1 a\ns 1 1\n1 1:22\n2 1");
	history_free(h);
}

/* Each drain's heat map is its own line, even when drains are summed, and
 * a drain with no stack but a heat map still gives a value; a count
 * repeated three times or more is one "C*R". */
static void
test_heat(void)
{
	struct history	*h = history_new(profile_value_samples, 1 << 20);
	uint64_t	a[5] = { 1, 0, 2, 0, 0 }, b[5] = { 0, 0, 0, 0, 4 }, z[5] = { 0 };

	when.tv_sec = 1733011200;
	fetch(h, 0);
	history_begin(h, &when, 99, 1);
	history_add(h, 1, 0, 1, "m", "p", "a", 3, 30303);
	CHECK_INT(history_heat(h, a, 5), 0);
	history_end(h);
	when.tv_sec++;
	history_begin(h, &when, 99, 2);
	CHECK_INT(history_heat(h, b, 5), 0);
	history_end(h);
	CHECK_STR(fetch(h, 0), "drains 2 1733011201.500000 hz 99\n"
		  "t 1 1 1 m\tp\nf 1 a\ns 1 1\n1 1:3\n"
		  "h 1733011200.500000 5 1 0 2\nh 1733011201.500000 5 0*4 4");
	when.tv_sec++;
	history_begin(h, &when, 99, 3);
	CHECK_INT(history_heat(h, z, 5), 0);
	history_end(h);
	CHECK_STR(fetch(h, 0), "drains 1 1733011202.500000 hz 99\nh 1733011202.500000 5");
	history_free(h);
}

/* Stacks a text defines come in the order of their frames, each after
 * the first naming how many root frames it shares with the one before
 * ("^K"); a new client is told them the same way, and a stack whose
 * frames the text does not define again refers to none of another text. */
static void
test_front_coded(void)
{
	struct history	*h = history_new(profile_value_samples, 1 << 20);
	static const char *const stacks[] = { "a;b;x", "a;b;c;e", "a;b;c;d", "q" };

	when.tv_sec = 1733011200;
	fetch(h, 0);
	history_begin(h, &when, 99, 1);
	for (size_t i = 0; i < 4; i++)
		history_add(h, 1, 0, 1, "m", "p", stacks[i], 1, profile_value_samples(1, 99));
	history_end(h);
	CHECK_STR(fetch(h, 0), "drains 1 1733011200.500000 hz 99\n"
		  "t 1 1 1 m\tp\nf 1 a\nf 2 b\nf 3 x\nf 4 c\nf 5 e\nf 6 d\nf 7 q\n"
		  "s 1 1,2,3\ns 2 ^2 4,5\ns 3 ^3 6\ns 4 7\n1 1 2 3 4");
	/* a later stack shares a prefix with one told before: written whole */
	when.tv_sec++;
	history_begin(h, &when, 99, 2);
	history_add(h, 1, 0, 1, "m", "p", "a;b;c;y", 1, profile_value_samples(1, 99));
	history_end(h);
	CHECK_STR(fetch(h, 0), "drains 1 1733011201.500000 hz 99\nf 8 y\ns 5 1,2,4,8\n1 5");
	history_free(h);
}

/* A thread's stacks ascend on its line; an id is written as "+D", its
 * distance from the one before, where that is shorter. */
static void
test_delta_ids(void)
{
	struct history	*h = history_new(profile_value_samples, 1 << 20);
	char		stack[16];

	when.tv_sec = 1733011200;
	fetch(h, 0);
	history_begin(h, &when, 99, 1);
	for (int i = 0; i < 120; i++) {
		snprintf(stack, sizeof(stack), "s%d", i);
		history_add(h, 1, 0, 1, "m", "p", stack, 1, profile_value_samples(1, 99));
	}
	history_end(h);
	fetch(h, 0);
	when.tv_sec++;
	history_begin(h, &when, 99, 2);
	history_add(h, 1, 0, 1, "m", "p", "s3", 2, profile_value_samples(2, 99));
	history_add(h, 1, 0, 1, "m", "p", "s9", 1, profile_value_samples(1, 99));
	history_add(h, 1, 0, 1, "m", "p", "s99", 1, profile_value_samples(1, 99));
	history_add(h, 1, 0, 1, "m", "p", "s100", 1, profile_value_samples(1, 99));
	history_add(h, 1, 0, 1, "m", "p", "s119", 1, profile_value_samples(1, 99));
	history_end(h);
	CHECK_STR(fetch(h, 0), "drains 1 1733011201.500000 hz 99\n1 4:2 10 100 +1 120");
	history_free(h);
}

/*
 * Keyframes: a client's first text, and its first text whose newest
 * drain is in a later keyframe_s period of the wall clock than its last
 * keyframe's (periods start at the epoch's multiples of keyframe_s), say
 * "period P key" and define every id they use, told or not; texts
 * between define only what is new; ids a keyframe does not use are
 * defined where they are next used.  A client without a slot gets every
 * definition every time: each of its texts is a keyframe.
 */
static void
test_keyframes(void)
{
	struct history	*h = history_new(profile_value_samples, 1 << 20);
	int		i;

	when.tv_sec = 1733011206;	/* 1733011200 is a multiple of 10 */
	history_set_keyframe(h, 10);
	CHECK_STR(fetch(h, 0), "(none)");
	drain(h, 1, 99, "main", "a;b", 1);
	CHECK_STR(fetch(h, 0), "drains 1 1733011206.500000 hz 99 period 10 key\n"
		  "t 1 100 101 main\tproc\nf 1 a\nf 2 b\ns 1 1,2\n1 1");
	drain(h, 2, 99, "main", "a;c", 1);
	CHECK_STR(fetch(h, 0), "drains 1 1733011207.500000 hz 99\n"
		  "f 3 c\ns 2 1,3\n1 2");
	drain(h, 3, 99, "main", "a;b", 2);
	drain(h, 4, 99, "main", "a;b", 1);
	CHECK_STR(fetch(h, 0), "drains 2 1733011209.500000 hz 99\n1 1:3");
	drain(h, 5, 99, "main", "a;b", 1);	/* 1733011210: the next period */
	CHECK_STR(fetch(h, 0), "drains 1 1733011210.500000 hz 99 period 10 key\n"
		  "t 1 100 101 main\tproc\nf 1 a\nf 2 b\ns 1 1,2\n1 1");
	drain(h, 6, 99, "main", "a;c", 1);	/* stack 2 again: defined again */
	CHECK_STR(fetch(h, 0), "drains 1 1733011211.500000 hz 99\nf 3 c\ns 2 1,3\n1 2");
	/* a client that missed the boundary: its next text is the keyframe */
	for (i = 0; i < 9; i++)
		drain(h, 7 + i, 99, "main", "a;c", 1);	/* to 1733011220 */
	CHECK_STR(fetch(h, 0), "drains 9 1733011220.500000 hz 99 period 10 key\n"
		  "t 1 100 101 main\tproc\nf 1 a\nf 3 c\ns 2 1,3\n1 2:9");
	/* switched off: no more keyframes, nothing told again */
	history_set_keyframe(h, 0);
	when.tv_sec = 1733011240;
	drain(h, 40, 99, "main", "a;c", 1);
	CHECK_STR(fetch(h, 0), "drains 1 1733011240.500000 hz 99\n1 2");
	/* on again: the next period of 600 s since the epoch */
	history_set_keyframe(h, 600);
	drain(h, 41, 99, "main", "a;c", 1);
	CHECK_STR(fetch(h, 0), "drains 1 1733011241.500000 hz 99\n1 2");
	when.tv_sec = 1733011800;		/* a multiple of 600 */
	drain(h, 42, 99, "main", "a;c", 1);
	CHECK_STR(fetch(h, 0), "drains 1 1733011800.500000 hz 99 period 600 key\n"
		  "t 1 100 101 main\tproc\nf 1 a\nf 3 c\ns 2 1,3\n1 2");
	history_free(h);

	h = history_new(profile_value_samples, 1 << 20);
	history_set_keyframe(h, 600);
	for (i = 0; i <= HISTORY_SLOTS; i++)
		fetch(h, i);
	drain(h, 1, 99, "m", "a", 1);
	drain(h, 2, 99, "m", "a", 1);
	CHECK_STR(fetch(h, HISTORY_SLOTS), "drains 2 1733011802.500000 hz 99 period 600 key\n"
		  "t 1 100 101 m\tproc\nf 1 a\ns 1 1\n1 1:2");
	drain(h, 3, 99, "m", "a", 1);
	CHECK_STR(fetch(h, HISTORY_SLOTS), "drains 1 1733011803.500000 hz 99 period 600 key\n"
		  "t 1 100 101 m\tproc\nf 1 a\ns 1 1\n1 1");
	history_free(h);
}

int
main(void)
{
	test_keyframes();
	test_delta_ids();
	test_front_coded();
	test_heat();
	test_flame();
	test_reused_pid();
	test_no_slot_left();
	test_defined_once_per_client();
	test_coalesced_and_values();
	test_hostile_names();
	test_bound_and_forgetting();
	return unit_report("test_history");
}
