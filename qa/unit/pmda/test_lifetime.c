/*
 * test_lifetime - a PID's processes get generations in the order they are
 * met, the last two are told apart, ids and labels pack (pid, gen), and
 * PIDs are forgotten only after LIFETIME_FORGET_S.
 */
#include <stdio.h>
#include "unit.h"
#include "pipeline/lifetime.h"

static unsigned
gen_of(struct lifetimes *l, pid_t pid, uint32_t start, time_t now)
{
	unsigned	gen = 99;

	CHECK_INT(lifetimes_gen(l, pid, start, now, &gen), 0);
	return gen;
}

static void
test_generations(void)
{
	struct lifetimes	*l = lifetimes_new();

	CHECK(l != NULL);
	CHECK_INT(gen_of(l, 100, 5000, 1), 0);
	CHECK_INT(gen_of(l, 100, 5000, 2), 0);		/* same process */
	CHECK_INT(gen_of(l, 200, 5000, 2), 0);		/* another PID */
	CHECK_INT(gen_of(l, 100, 9000, 3), 1);		/* PID reused */
	CHECK(lifetimes_newest(l, 100, 1));
	CHECK(!lifetimes_newest(l, 100, 0));
	CHECK_INT(gen_of(l, 100, 5000, 3), 0);		/* old one's last stacks */
	CHECK(lifetimes_newest(l, 100, 1));		/* ... do not make it newest */
	CHECK_INT(gen_of(l, 100, 9500, 4), 2);
	CHECK_INT(gen_of(l, 100, 9000, 4), 1);
	/* three generations back is not told apart: taken as a new one */
	CHECK_INT(gen_of(l, 100, 5000, 5), 3);
	CHECK_INT(lifetimes_count(l), 2);
	lifetimes_free(l);
}

static void
test_wrap_and_forget(void)
{
	struct lifetimes	*l = lifetimes_new();
	unsigned		i, g = 0;

	for (i = 0; i < LIFETIME_GENS; i++)
		g = gen_of(l, 7, 100 + i, 10);
	CHECK_INT(g, LIFETIME_GENS - 1);
	CHECK_INT(gen_of(l, 7, 100 + i, 10), 0);	/* wraps, ids stay 31-bit */
	CHECK_INT(gen_of(l, 8, 1, 10), 0);
	CHECK_INT(gen_of(l, 8, 1, 10 + LIFETIME_FORGET_S - 1), 0);
	lifetimes_forget(l, 10 + LIFETIME_FORGET_S);	/* 7 unused a day: forgotten */
	CHECK_INT(lifetimes_count(l), 1);
	CHECK_INT(gen_of(l, 7, 1, 10 + LIFETIME_FORGET_S), 0);
	CHECK_INT(gen_of(l, 8, 2, 10 + LIFETIME_FORGET_S), 1);	/* 8 was kept */
	/* many PIDs: the table grows and finds every one */
	for (i = 1000; i < 20000; i++)
		gen_of(l, (pid_t)i, i, 20 + LIFETIME_FORGET_S);
	for (i = 1000; i < 20000; i += 997)
		CHECK_INT(gen_of(l, (pid_t)i, i + 1, 20 + LIFETIME_FORGET_S), 1);
	CHECK_INT(lifetimes_count(l), 2 + 19000);
	lifetimes_free(l);
}

static void
test_ids_and_labels(void)
{
	char	buf[LIFETIME_LABEL_LEN];

	CHECK_INT(lifetime_inst(32716, 0), 32716);
	CHECK_INT(lifetime_inst(32716, 2), 32716 + 2 * (1 << 22));
	CHECK(lifetime_inst((1 << 22) - 1, LIFETIME_GENS - 1) > 0);	/* never negative */
	lifetime_label(buf, sizeof(buf), 32716, 0);
	CHECK_STR(buf, "32716");
	lifetime_label(buf, sizeof(buf), 32716, 3);
	CHECK_STR(buf, "32716.3");
	lifetime_label(buf, sizeof(buf), (1 << 22) - 1, LIFETIME_GENS - 1);
	CHECK_STR(buf, "4194303.511");
}

int
main(void)
{
	test_generations();
	test_wrap_and_forget();
	test_ids_and_labels();
	return unit_report("test_lifetime");
}
