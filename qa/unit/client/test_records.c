/*
 * test_records.c - decoding stackprof event records into stack_samples,
 * with records packed by libpcp_pmda exactly as the PMDA packs them: the
 * (from, to] range on record timestamps, parameter types looked up rather
 * than assumed, records missing their stack or count skipped and counted,
 * an empty process name falling back to the thread name.
 */
#include <math.h>
#include <stdlib.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "unit.h"
#include "source/records.h"

static struct record_ids ids;

struct seen {
	int	n;
	char	line[8][160];
};

static int
collect(void *arg, const struct stack_sample *s)
{
	struct seen	*v = arg;

	if (v->n < 8)
		snprintf(v->line[v->n], sizeof(v->line[0]), "%s|%s|%s|%s|%s|%u|%u|%llu|%llu|%.6f",
			 s->host, s->process, s->thread ? s->thread : "-", s->stack,
			 s->event ? s->event : "-", s->pid, s->tid,
			 (unsigned long long)s->count, (unsigned long long)s->value_us, s->time);
	v->n++;
	return 0;
}

static void
add_record(int array, long sec, long usec, const char *stack, uint64_t count,
	   const char *comm, const char *process, uint32_t pid)
{
	struct timeval	tv = { sec, usec };
	pmAtomValue	a;

	CHECK(pmdaEventAddRecord(array, &tv, PM_EVENT_FLAG_POINT) >= 0);
	if (stack) {
		a.cp = (char *)stack;
		CHECK(pmdaEventAddParam(array, ids.param[RP_STACK], PM_TYPE_STRING, &a) >= 0);
	}
	if (count) {
		a.ull = count;
		CHECK(pmdaEventAddParam(array, ids.param[RP_COUNT], PM_TYPE_U64, &a) >= 0);
	}
	a.ul = pid;
	CHECK(pmdaEventAddParam(array, ids.param[RP_PID], PM_TYPE_U32, &a) >= 0);
	CHECK(pmdaEventAddParam(array, ids.param[RP_TID], PM_TYPE_U32, &a) >= 0);
	a.cp = (char *)comm;
	CHECK(pmdaEventAddParam(array, ids.param[RP_COMM], PM_TYPE_STRING, &a) >= 0);
	a.cp = (char *)process;
	CHECK(pmdaEventAddParam(array, ids.param[RP_PROCESS], PM_TYPE_STRING, &a) >= 0);
	a.cp = "on-cpu";
	CHECK(pmdaEventAddParam(array, ids.param[RP_TYPE], PM_TYPE_STRING, &a) >= 0);
	a.ull = count * 10101;
	CHECK(pmdaEventAddParam(array, ids.param[RP_VALUE], PM_TYPE_U64, &a) >= 0);
}

static void
test_decode(void)
{
	int			array = pmdaEventNewArray(), k;
	int			types[RP_NPARAMS] = { PM_TYPE_STRING, PM_TYPE_U64, PM_TYPE_U32,
				  PM_TYPE_U32, PM_TYPE_STRING, PM_TYPE_STRING, PM_TYPE_STRING, PM_TYPE_U64 };
	pmValueSet		vs;
	struct seen		v = { 0 };
	struct record_counts	c = { .first = INFINITY };

	ids.stacks = pmID_build(170, 1, 0);
	ids.stacks_type = PM_TYPE_EVENT;
	for (k = 0; k < RP_NPARAMS; k++) {
		ids.param[k] = pmID_build(170, 1, 10 + k);
		ids.type[k] = types[k];
	}
	CHECK(array >= 0);
	add_record(array, 100, 0, "a;b", 3, "main", "java", 7);		/* == from: out */
	add_record(array, 100, 1, "a;c", 2, "gc", "java", 7);
	add_record(array, 101, 0, "x", 1, "t", "", 9);			/* no process name */
	add_record(array, 101, 5, NULL, 4, "t", "p", 9);			/* no stack */
	add_record(array, 101, 6, "y", 0, "t", "p", 9);			/* no count */
	add_record(array, 102, 0, "z", 5, "t", "p", 9);			/* > to: out */

	memset(&vs, 0, sizeof(vs));
	vs.pmid = ids.stacks;
	vs.numval = 1;
	vs.valfmt = PM_VAL_DPTR;
	vs.vlist[0].inst = PM_IN_NULL;
	vs.vlist[0].value.pval = (pmValueBlock *)pmdaEventGetAddr(array);
	CHECK_INT(records_deliver(&vs, &ids, "h", 100.0, 101.000006, collect, &v, &c), 0);
	CHECK_INT(v.n, 2);
	CHECK_STR(v.line[0], "h|java|gc|a;c|on-cpu|7|7|2|20202|100.000001");
	CHECK_STR(v.line[1], "h|t|t|x|on-cpu|9|9|1|10101|101.000000");
	CHECK_INT(c.records, 2);
	CHECK_INT(c.before, 1);
	CHECK_INT(c.after, 1);
	CHECK_INT(c.malformed, 2);
	CHECK(c.first == 100.000001 && c.last == 101.0);

	/* no bounds: everything with a stack and a count */
	memset(&v, 0, sizeof(v));
	c = (struct record_counts){ .first = INFINITY };
	CHECK_INT(records_deliver(&vs, &ids, "h", -INFINITY, INFINITY, collect, &v, &c), 0);
	CHECK_INT(v.n, 4);
	CHECK_INT(c.malformed, 2);
	pmdaEventReleaseArray(array);
}

int
main(void)
{
	test_decode();
	return unit_report("test_records");
}
