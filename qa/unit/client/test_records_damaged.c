/*
 * test_records_damaged.c - event records that a damaged archive (or a
 * buggy PMDA) can hold, as fuzz_records found them: the decoder refuses
 * them with an error or counts them malformed, and never crashes or hands
 * a sample over without its stack.  Records are packed by libpcp_pmda as
 * the PMDA packs them, then damaged in one place.
 */
#include <math.h>
#include <stdlib.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "unit.h"
#include "source/records.h"

static struct record_ids ids;
static int delivered;

static int
count_sample(void *arg, const struct stack_sample *s)
{
	(void)arg;
	CHECK(s->stack != NULL);
	delivered++;
	return 0;
}

static void
set_ids(void)
{
	static const int types[RP_NPARAMS] = { PM_TYPE_STRING, PM_TYPE_U64, PM_TYPE_U32,
		PM_TYPE_U32, PM_TYPE_STRING, PM_TYPE_STRING, PM_TYPE_STRING, PM_TYPE_U64 };

	ids.stacks = pmID_build(170, 1, 0);
	ids.stacks_type = PM_TYPE_EVENT;
	for (int k = 0; k < RP_NPARAMS; k++) {
		ids.param[k] = pmID_build(170, 1, 10 + k);
		ids.type[k] = types[k];
	}
}

/* One record with a stack and a count, as the PMDA packs it. */
static int
pack_one(void)
{
	struct timeval	tv = { 100, 0 };
	pmAtomValue	a;
	int		array = pmdaEventNewArray();

	CHECK(array >= 0);
	CHECK(pmdaEventAddRecord(array, &tv, PM_EVENT_FLAG_POINT) >= 0);
	a.cp = "main;work";
	CHECK(pmdaEventAddParam(array, ids.param[RP_STACK], PM_TYPE_STRING, &a) >= 0);
	a.ull = 3;
	CHECK(pmdaEventAddParam(array, ids.param[RP_COUNT], PM_TYPE_U64, &a) >= 0);
	return array;
}

/* The n'th parameter of the first record of the packed array. */
static pmEventParameter *
param(pmEventArray *ea, int n)
{
	char *at = (char *)&ea->ea_record[0].er_param[0];

	while (n-- > 0) {
		pmEventParameter *ep = (pmEventParameter *)at;
		at += sizeof(ep->ep_pmid) + ((ep->ep_len + 3) & ~3u);
	}
	return (pmEventParameter *)at;
}

/* Decode a copy of exactly ea_len bytes, so that a read past the array is
 * a read past the allocation (ASan sees it). */
static int
deliver(pmEventArray *ea, struct record_counts *c)
{
	pmValueSet	vs = { .pmid = ids.stacks, .numval = 1, .valfmt = PM_VAL_DPTR };
	pmEventArray	*copy = malloc(ea->ea_len);
	int		sts;

	if (copy == NULL)
		exit(2);
	memcpy(copy, ea, ea->ea_len);
	vs.vlist[0].inst = PM_IN_NULL;
	vs.vlist[0].value.pval = (pmValueBlock *)copy;
	*c = (struct record_counts){ .first = INFINITY };
	delivered = 0;
	sts = records_deliver(&vs, &ids, "h", -INFINITY, INFINITY, count_sample, NULL, c);
	free(copy);
	return sts;
}

/* The undamaged array goes through: the tests below damage only one thing. */
static void
test_sound(void)
{
	int			array = pack_one();
	struct record_counts	c;

	CHECK_INT(deliver(pmdaEventGetAddr(array), &c), 0);
	CHECK_INT(delivered, 1);
	pmdaEventReleaseArray(array);
}

/* The count, the last parameter, made a value of type with ep_len len
 * (the array shrunk to match, so the walk stays in step): refused. */
static void
expect_refused(int type, unsigned len)
{
	int			array = pack_one();
	pmEventArray		*ea = pmdaEventGetAddr(array);
	pmEventParameter	*count = param(ea, 1);
	struct record_counts	c;

	ea->ea_len -= ((count->ep_len + 3) & ~3u) - ((len + 3) & ~3u);
	count->ep_type = type;
	count->ep_len = len;
	CHECK(deliver(ea, &c) < 0);
	CHECK_INT(delivered, 0);
	pmdaEventReleaseArray(array);
}

/* A string parameter shorter than its own header: libpcp 6.0.3 memcpy'd a
 * negative length (ASan: negative-size-param; plain: free(): invalid
 * pointer).  A U64 parameter holding 4 bytes: libpcp read 8, past the
 * array (ASan: heap-buffer-overflow). */
static void
test_values_shorter_than_their_type(void)
{
	expect_refused(PM_TYPE_STRING, 2);
	expect_refused(PM_TYPE_U64, PM_VAL_HDR_SIZE + 4);
}

/* A record whose stack is a number, with metadata that agrees (both
 * damaged, or another PMDA under our names): the sample went out with a
 * NULL stack, which the selection then read. */
static void
test_stack_not_text(void)
{
	struct timeval		tv = { 100, 0 };
	struct record_counts	c;
	pmAtomValue		a;
	int			array = pmdaEventNewArray();

	CHECK(pmdaEventAddRecord(array, &tv, PM_EVENT_FLAG_POINT) >= 0);
	a.ul = 7;
	CHECK(pmdaEventAddParam(array, ids.param[RP_STACK], PM_TYPE_U32, &a) >= 0);
	a.ull = 3;
	CHECK(pmdaEventAddParam(array, ids.param[RP_COUNT], PM_TYPE_U64, &a) >= 0);
	ids.type[RP_STACK] = PM_TYPE_U32;
	CHECK_INT(deliver(pmdaEventGetAddr(array), &c), 0);
	CHECK_INT(delivered, 0);
	CHECK_INT(c.malformed, 1);
	set_ids();
	pmdaEventReleaseArray(array);

	/* metadata calling the count a string: the count is missing */
	array = pack_one();
	ids.type[RP_COUNT] = PM_TYPE_STRING;
	CHECK_INT(deliver(pmdaEventGetAddr(array), &c), 0);
	CHECK_INT(delivered, 0);
	CHECK_INT(c.malformed, 1);
	set_ids();
	pmdaEventReleaseArray(array);
}

int
main(void)
{
	set_ids();
	test_sound();
	test_values_shorter_than_their_type();
	test_stack_not_text();
	return unit_report("test_records_damaged");
}
