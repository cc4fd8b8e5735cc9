/*
 * test_membuf.c - the buffer every emitter writes into: held whole, and
 * drained a chunk at a time into a stage (the same bytes, in order, never
 * more than a chunk held), with a drain's failure kept and reported once.
 */
#include <errno.h>
#include "unit.h"
#include "common/membuf.h"

struct collected {
	struct membuf	all;
	int		calls;
	size_t		largest;
	int		fail_at;	/* the call that fails, 0: none */
};

static int
collect(void *arg, const void *data, size_t len)
{
	struct collected	*c = arg;

	if (++c->calls == c->fail_at) {
		errno = ENOSPC;
		return -1;
	}
	if (len > c->largest)
		c->largest = len;
	membuf_append(&c->all, data, len);
	return 0;
}

/* What the JSON emitter does: many small pieces, some through room/wrote,
 * some appended, some printed. */
static void
write_pieces(struct membuf *b, int n)
{
	int	i;

	for (i = 0; i < n; i++) {
		char	*p = membuf_room(b, 8);

		if (p != NULL) {
			memcpy(p, "[1,2],", 6);
			membuf_wrote(b, 6);
		}
		membuf_puts(b, "ab");
		membuf_printf(b, "%d;", i % 10);
	}
}

static void
test_drained(void)
{
	struct membuf		whole, drained;
	struct collected	c = { .fail_at = 0 };

	membuf_init(&whole);
	membuf_init(&c.all);
	write_pieces(&whole, 1000);
	CHECK_INT(membuf_init_drained(&drained, 64, collect, &c), 0);
	write_pieces(&drained, 1000);
	CHECK(drained.len < 64);		/* held: at most a chunk */
	CHECK_INT(membuf_drain(&drained), 0);
	CHECK_INT(drained.len, 0);
	CHECK_INT(c.all.len, whole.len);
	CHECK(c.all.data != NULL && memcmp(c.all.data, whole.data, whole.len) == 0);
	CHECK(c.calls > 100);
	CHECK(c.largest < 64);
	CHECK_INT(drained.failed, 0);

	/* a piece of many chunks (another buffer's text) goes to the drain
	 * a chunk at a time, after what was held, without growing the buffer */
	membuf_reset(&c.all);
	c.largest = 0;
	{
		char	big[200];
		size_t	cap = drained.cap;

		memset(big, 'x', sizeof(big));
		membuf_append(&drained, "head", 4);
		membuf_append(&drained, big, sizeof(big));
		CHECK_INT(membuf_drain(&drained), 0);
		CHECK_INT(c.all.len, 204);
		CHECK(c.all.data != NULL && memcmp(c.all.data, "headxxx", 7) == 0);
		CHECK(c.largest <= cap);
		CHECK_INT(drained.cap, cap);
	}
	membuf_free(&drained);
	membuf_free(&whole);
	membuf_free(&c.all);
}

static void
test_drain_fails(void)
{
	struct membuf		b;
	struct collected	c = { .fail_at = 3 };

	membuf_init(&c.all);
	CHECK_INT(membuf_init_drained(&b, 32, collect, &c), 0);
	write_pieces(&b, 100);
	CHECK_INT(b.failed, 1);
	CHECK_INT(b.drain_errno, ENOSPC);
	CHECK_INT(c.calls, 3);			/* nothing drained after the failure */
	CHECK_INT(membuf_drain(&b), -1);
	CHECK_INT(c.calls, 3);
	membuf_free(&b);
	membuf_free(&c.all);

	/* a buffer without a drain: membuf_drain keeps what it holds */
	membuf_init(&b);
	membuf_puts(&b, "kept");
	CHECK_INT(membuf_drain(&b), 0);
	CHECK_STR(b.data, "kept");
	membuf_free(&b);
}

int
main(void)
{
	test_drained();
	test_drain_fails();
	return unit_report("test_membuf");
}
