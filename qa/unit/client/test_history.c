/*
 * test_history.c - decoding stackprof.oncpu.history values: definitions
 * kept across values, counts and explicit µs, the (from, to] range on the
 * drain time, stacks resolved from frame ids, ids up to 2^64-1 and counts
 * past 2^32, a redefined id taking
 * its new meaning, stacks defined from the one before ("^K"), heat lines
 * and their runs ("C*R"), keyframes told by their header, and hostile text (bad headers, numbers that
 * overflow, ids never defined, garbage lines) skipped and counted, never
 * crashing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "source/history.h"

struct seen {
	int	n;
	char	line[16][200];
	int	nheat;
	char	heat[4][200];
};

static int
collect(void *arg, const struct stack_sample *s)
{
	struct seen	*v = arg;

	if (v->n < 16)
		snprintf(v->line[v->n], sizeof(v->line[0]), "%s|%s|%s|%s|%s|%u|%u|%llu|%llu|%.6f",
			 s->host, s->process, s->thread, s->stack, s->event, s->pid, s->tid,
			 (unsigned long long)s->count, (unsigned long long)s->value_us, s->time);
	v->n++;
	return 0;
}

static int
heat(void *arg, double t, const uint64_t *counts, unsigned n)
{
	struct seen	*v = arg;
	unsigned	i;
	int		k;

	if (v->nheat < 4) {
		k = snprintf(v->heat[v->nheat], sizeof(v->heat[0]), "%.6f/%u:", t, n);
		for (i = 0; i < n && k < 180; i++)
			k += snprintf(v->heat[v->nheat] + k, sizeof(v->heat[0]) - (size_t)k, "%s%llu",
				      i ? "," : "", (unsigned long long)counts[i]);
	}
	v->nheat++;
	return 0;
}

static uint64_t
samples_us(uint64_t count, unsigned hz)
{
	return hz ? count * 1000000u / hz : 0;
}

static struct record_counts
deliver(struct history_reader *r, const char *text, struct seen *v, double from, double to)
{
	struct record_counts	c = { .first = INFINITY, .last = -INFINITY };

	memset(v, 0, sizeof(*v));
	CHECK_INT(history_deliver(r, text, "h", from, to, collect, v, heat, v, &c), 0);
	return c;
}

static void
test_values(void)
{
	struct history_reader	*r = history_reader_new("on-cpu", samples_us);
	struct record_counts	c;
	struct seen		v;

	c = deliver(r, "drains 1 1733011200.500000 hz 99\n"
		    "t 3 4711 4712 my comm\tpython3\n"
		    "f 1 main\nf 2 foo\nf 3 [k] bar baz\n"
		    "s 17 1,2,3\n"
		    "s 18 1\n"
		    "3 17 18:4", &v, -INFINITY, INFINITY);
	CHECK_INT(v.n, 2);
	CHECK_STR(v.line[0], "h|python3|my comm|main;foo;[k] bar baz|on-cpu|4711|4712|1|10101|1733011200.500000");
	CHECK_STR(v.line[1], "h|python3|my comm|main|on-cpu|4711|4712|4|40404|1733011200.500000");
	CHECK_INT(c.records, 2);
	CHECK_INT(c.malformed, 0);
	/* definitions are kept; an explicit value wins; counts past 2^32 */
	c = deliver(r, "drains 2 1733011201.000001 hz 49\n3 17:2:20202 18:4294967297", &v,
		    -INFINITY, INFINITY);
	CHECK_INT(v.n, 2);
	CHECK_STR(v.line[0], "h|python3|my comm|main;foo;[k] bar baz|on-cpu|4711|4712|2|20202|1733011201.000001");
	CHECK_STR(v.line[1], "h|python3|my comm|main|on-cpu|4711|4712|4294967297|87652393816326|1733011201.000001");
	/* the range is (from, to] on the drain time */
	c = deliver(r, "drains 1 1733011201.000001 hz 99\n3 17", &v, 1733011201.000001, INFINITY);
	CHECK_INT(v.n, 0);
	CHECK_INT(c.before, 1);
	c = deliver(r, "drains 1 1733011201.000001 hz 99\n3 17", &v, 0, 1733011201.000001);
	CHECK_INT(v.n, 1);
	c = deliver(r, "drains 1 1733011201.000002 hz 99\n3 17", &v, 0, 1733011201.000001);
	CHECK_INT(c.after, 1);
	/* a restarted PMDA numbers anew: the new meaning wins */
	c = deliver(r, "drains 1 1733011300.000000 hz 99\nt 3 9 9 x\t\nf 1 other\ns 17 1\n3 17", &v,
		    -INFINITY, INFINITY);
	CHECK_STR(v.line[0], "h|x|x|other|on-cpu|9|9|1|10101|1733011300.000000");
	history_reader_free(r);
}

static int
collect_gen(void *arg, const struct stack_sample *s)
{
	char	*out = arg;

	snprintf(out + strlen(out), 200 - strlen(out), "%u.%u/%u:%llu ", s->pid, s->gen, s->tid,
		 (unsigned long long)s->count);
	return 0;
}

/* "t ID PID.GEN ...": a reused PID's process, apart from the first. */
static void
test_reused_pid(void)
{
	struct history_reader	*r = history_reader_new("on-cpu", samples_us);
	struct record_counts	c = { .first = INFINITY, .last = -INFINITY };
	char			out[200] = "";

	CHECK_INT(history_deliver(r, "drains 1 1733011200.500000 hz 99\n"
				  "t 3 4711 4711 bash\tbash\nt 4 4711.1 4711 bash\tbash\n"
				  "t 5 4711. 4711 bash\tbash\nt 6 4711.x 4711 bash\tbash\n"
				  "f 1 main\ns 17 1\n3 17:22\n4 17\n5 17\n6 17",
				  "h", -INFINITY, INFINITY, collect_gen, out, NULL, NULL, &c), 0);
	CHECK_STR(out, "4711.0/4711:22 4711.1/4711:1 ");
	CHECK_INT(c.malformed, 4);	/* two bad definitions, their two counts */
	history_reader_free(r);
}

static void
test_huge_ids(void)
{
	struct history_reader	*r = history_reader_new("on-cpu", samples_us);
	struct record_counts	c;
	struct seen		v;

	c = deliver(r, "drains 1 1.000000 hz 99\n"
		    "t 18446744073709551615 4294967295 1 a\tb\n"
		    "f 18446744073709551615 f\n"
		    "s 18446744073709551615 18446744073709551615\n"
		    "18446744073709551615 18446744073709551615:18446744073709551615:7", &v,
		    -INFINITY, INFINITY);
	CHECK_INT(c.malformed, 0);
	CHECK_INT(v.n, 1);
	CHECK_STR(v.line[0], "h|b|a|f|on-cpu|4294967295|1|18446744073709551615|7|1.000000");
	/* one past 2^64-1, a pid past 2^32-1: refused */
	c = deliver(r, "drains 1 1.000000 hz 99\n"
		    "t 18446744073709551616 1 1 a\tb\n"
		    "t 5 4294967296 1 a\tb\n"
		    "s 18446744073709551616 1\n"
		    "f 18446744073709551616 g\n"
		    "s 5 18446744073709551616\n"
		    "18446744073709551615 18446744073709551616 1:18446744073709551616", &v,
		    -INFINITY, INFINITY);
	CHECK_INT(c.malformed, 7);
	CHECK_INT(v.n, 0);
	history_reader_free(r);
}

static void
test_hostile(void)
{
	static const char *const bad_headers[] = {
		"", "\n", "drains", "drains x 1.000000 hz 99", "drains 1 1.5 hz 99",
		"drains 1 1.000000 hz", "drains 1 1.000000 hz x", "records 1 1.000000 hz 99",
		"drains 1 99999999999999999999.000000 hz 99",
	};
	struct history_reader	*r = history_reader_new("on-cpu", samples_us);
	struct record_counts	c;
	struct seen		v;
	size_t			i;
	char			*big;

	for (i = 0; i < sizeof(bad_headers) / sizeof(bad_headers[0]); i++) {
		c = deliver(r, bad_headers[i], &v, -INFINITY, INFINITY);
		CHECK_INT(c.malformed, 1);
		CHECK_INT(v.n, 0);
	}
	c = deliver(r, "drains 1 1.000000 hz 0\n"
		    "t 1 1 1 no tab\n"	/* malformed: no tab */
		    "t 2 1 1 a\tb\n"
		    "s 1\n"		/* malformed: no frames */
		    "f 7 f\n"
		    "f 8\n"		/* malformed: no space */
		    "f 9 \n"		/* an empty name is a name */
		    "s 2 7\n"
		    "s 3 7,8\n"	/* malformed: frame 8 never defined */
		    "s 4 7,\n"	/* malformed */
		    "s 5 7;9\n"	/* malformed */
		    "x garbage\n"
		    "\n"
		    "1 2\n"		/* thread 1 never defined */
		    "2 3 2:x 2:1: 2 2:1:2:3 2;2\n"	/* 3 undefined; 2 good; others bad */
		    "2 2", &v, -INFINITY, INFINITY);
	CHECK_INT(v.n, 2);
	CHECK_STR(v.line[0], "h|b|a|f|on-cpu|1|1|1|0|1.000000");	/* hz 0: no µs */
	CHECK_INT(c.malformed, 14);
	/* a long line and a long frame list are fine */
	big = malloc(1 << 20);
	memset(big, 'f', 1 << 20);
	memcpy(big, "drains 1 1.000000 hz 99\nf 9 ", 28);
	big[(1 << 20) - 1] = '\0';
	c = deliver(r, big, &v, -INFINITY, INFINITY);
	CHECK_INT(c.malformed, 0);
	free(big);
	/* a deep stack of that frame, resolved to 1 MB x 3 of text */
	c = deliver(r, "drains 1 1.000000 hz 99\ns 9 9,9,9\n2 9", &v, -INFINITY, INFINITY);
	CHECK_INT(c.malformed, 0);
	CHECK_INT(v.n, 1);
	history_reader_free(r);
}

/* Heat lines: each to the callback, missing counts are 0, bad ones skipped. */
static void
test_heat(void)
{
	struct history_reader	*r = history_reader_new("on-cpu", samples_us);
	struct record_counts	c;
	struct seen		v;

	c = deliver(r, "drains 2 1733011201.500000 hz 99\n"
		    "h 1733011200.500000 5 1 0 2\n"
		    "h 1733011201.500000 5\n"
		    "h 1733011201.500000 7 1\n"		/* 7 does not divide 1000 */
		    "h 1733011201.500000 5 1 2 3 4 5 6\n"	/* more counts than slices */
		    "h 1733011201.5 5 1\n"			/* bad time */
		    "h 1733011201.500000 0\n"
		    "h 1733011201.500000 1000 18446744073709551616", &v, -INFINITY, INFINITY);
	CHECK_INT(v.nheat, 2);
	CHECK_STR(v.heat[0], "1733011200.500000/5:1,0,2,0,0");
	CHECK_STR(v.heat[1], "1733011201.500000/5:0,0,0,0,0");
	CHECK_INT(c.malformed, 5);
	/* runs: C*R is C R times; a run past the slices, of 0 or without a
	 * length is malformed */
	c = deliver(r, "drains 1 1733011201.500000 hz 99\n"
		    "h 1733011201.500000 5 4*3 0 7\n"
		    "h 1733011201.500000 5 1 4*4\n"
		    "h 1733011201.500000 5 4*5\n"
		    "h 1733011201.500000 5 1 4*5\n"
		    "h 1733011201.500000 5 4*0\n"
		    "h 1733011201.500000 5 4*\n"
		    "h 1733011201.500000 5 4*99999999999", &v, -INFINITY, INFINITY);
	CHECK_INT(v.nheat, 3);
	CHECK_STR(v.heat[0], "1733011201.500000/5:4,4,4,0,7");
	CHECK_STR(v.heat[1], "1733011201.500000/5:1,4,4,4,4");
	CHECK_STR(v.heat[2], "1733011201.500000/5:4,4,4,4,4");
	CHECK_INT(c.malformed, 4);
	/* without a callback they are read and dropped */
	c = (struct record_counts){ 0 };
	CHECK_INT(history_deliver(r, "drains 1 1.000000 hz 99\nh 1.000000 5 1", "h", -INFINITY,
				  INFINITY, collect, &v, NULL, NULL, &c), 0);
	CHECK_INT(c.malformed, 0);
	history_reader_free(r);
}

/* "s ID ^K F,...": the first K frames of the stack defined just before in
 * the same value; K beyond that stack, K = 0, or no stack before in this
 * value (a reference never reaches into an earlier value) is malformed. */
static void
test_front_coded(void)
{
	struct history_reader	*r = history_reader_new("on-cpu", samples_us);
	struct record_counts	c;
	struct seen		v;

	c = deliver(r, "drains 1 1733011201.500000 hz 99\n"
		    "t 1 10 11 m\tp\nf 1 a\nf 2 b\nf 3 x\nf 4 c\nf 5 e\nf 6 d\n"
		    "s 1 1,2,3\ns 2 ^2 4,5\ns 3 ^3 6\ns 4 ^5 6\ns 5 ^0 6\n"
		    "1 1 2 3", &v, -INFINITY, INFINITY);
	CHECK_INT(v.n, 3);
	CHECK_STR(v.line[0], "h|p|m|a;b;x|on-cpu|10|11|1|10101|1733011201.500000");
	CHECK_STR(v.line[1], "h|p|m|a;b;c;e|on-cpu|10|11|1|10101|1733011201.500000");
	CHECK_STR(v.line[2], "h|p|m|a;b;c;d|on-cpu|10|11|1|10101|1733011201.500000");
	CHECK_INT(c.malformed, 2);
	/* the next value starts with no stack to refer to */
	c = deliver(r, "drains 1 1733011202.500000 hz 99\ns 6 ^1 6\ns 7 1,6\ns 8 ^2 2\n1 7 8",
		    &v, -INFINITY, INFINITY);
	CHECK_INT(v.n, 2);
	CHECK_STR(v.line[0], "h|p|m|a;d|on-cpu|10|11|1|10101|1733011202.500000");
	CHECK_STR(v.line[1], "h|p|m|a;d;b|on-cpu|10|11|1|10101|1733011202.500000");
	CHECK_INT(c.malformed, 1);
	/* "+D": D past the token before on the line, whatever else it held */
	c = deliver(r, "drains 1 1733011203.500000 hz 99\n1 1 +1:2 +5:x +1 +18446744073709551615",
		    &v, -INFINITY, INFINITY);
	CHECK_INT(v.n, 3);
	CHECK_STR(v.line[0], "h|p|m|a;b;x|on-cpu|10|11|1|10101|1733011203.500000");
	CHECK_STR(v.line[1], "h|p|m|a;b;c;e|on-cpu|10|11|2|20202|1733011203.500000");
	CHECK_STR(v.line[2], "h|p|m|a;d;b|on-cpu|10|11|1|10101|1733011203.500000");
	CHECK_INT(c.malformed, 2);
	history_reader_free(r);
}

/* A keyframe is a header that parses and ends in " key", and states its
 * period just before; the value may come unterminated from an archive, so
 * only len bytes are read. */
static void
test_keyframe(void)
{
	static const char	*const yes[] = {
		"drains 1 1733011200.500000 hz 99 key",
		"drains 1 1733011200.500000 hz 99 key\nt 1 1 1 m\tp",
		"drains 3 1733011200.500000 hz 1000000 missed 2 key\n1 1",
	};
	static const char	*const no[] = {
		"drains 1 1733011200.500000 hz 99",			/* an old value */
		"drains 1 1733011200.500000 hz 99\nkey",
		"drains 1 1733011200.500000 hz 99 missed 2",
		"drains 1 1733011200.5 hz 99 key",			/* bad time */
		"drain 1 1733011200.500000 hz 99 key",
		"drains 1 1733011200.500000 hz key",
		"drains 1 1733011200.500000 hz 99 keys",
		"",
		"key",
	};
	static const struct {
		const char	*text;
		int		period;
	} periods[] = {
		{ "drains 1 1733011200.500000 hz 99 period 1800 key\nt 1 1 1 m\tp", 1800 },
		{ "drains 3 1733011200.500000 hz 1000000 missed 2 period 10 key", 10 },
		{ "drains 1 1733011200.500000 hz 99 period 1800", -1 },		/* no key */
		{ "drains 1 1733011200.500000 hz 99 period key", 0 },		/* no number */
		{ "drains 1 1733011200.500000 hz 99 period 99999999999 key", 0 },	/* too big */
		{ "drains 1 1733011200.500000 hz 99period 60 key", 0 },
		{ "drains 1 1733011200.500000 hz 99 period 60x key", 0 },
	};
	char	big[300];
	size_t	i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		CHECK(history_is_keyframe(yes[i], strlen(yes[i])));
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		CHECK(!history_is_keyframe(no[i], strlen(no[i])));
	/* len bounds the read: the same bytes cut before " key" are not one */
	CHECK(!history_is_keyframe(yes[0], strlen(yes[0]) - 1));
	CHECK(history_is_keyframe("drains 1 1733011200.500000 hz 99 key\0junk", 36));
	CHECK(!history_is_keyframe("drains 1 1733011200.500000 hz 99 key\0junk", 41));
	/* the period a keyframe states: 0 when none (older PMDAs) */
	CHECK_INT(history_keyframe_period(yes[0], strlen(yes[0])), 0);
	CHECK_INT(history_keyframe_period(no[0], strlen(no[0])), -1);
	for (i = 0; i < sizeof(periods) / sizeof(periods[0]); i++)
		CHECK_INT(history_keyframe_period(periods[i].text, strlen(periods[i].text)),
			  periods[i].period);
	/* a first line longer than any header: not one, whatever its end */
	memset(big, ' ', sizeof(big));
	memcpy(big, "drains 1 1733011200.500000 hz 99", 32);
	memcpy(big + sizeof(big) - 4, " key", 4);
	CHECK(!history_is_keyframe(big, sizeof(big)));
}

int
main(void)
{
	test_keyframe();
	test_front_coded();
	test_heat();
	test_values();
	test_reused_pid();
	test_huge_ids();
	test_hostile();
	return unit_report("test_history");
}
