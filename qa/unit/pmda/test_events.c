/*
 * test_events - the stackprof.oncpu.stacks queue: every reader sees every
 * record appended after its first fetch exactly once, whatever its fetch
 * rate; the memory bound drops the oldest and tells the reader.
 */
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "unit.h"
#include "pipeline/events.h"

static struct event_queue	*q;

/* Fetch as client ctx; return the records, count "missed" ones apart. */
static int
fetch_count(int ctx, int *missed)
{
	pmAtomValue	atom;
	pmValueSet	vset;
	pmResult	**res;
	int		sts = events_fetch(q, ctx, &atom), i, n = 0, nrec;

	*missed = 0;
	if (sts != PMDA_FETCH_STATIC)
		return 0;
	memset(&vset, 0, sizeof(vset));
	vset.numval = 1;
	vset.valfmt = PM_VAL_DPTR;
	vset.vlist[0].value.pval = atom.vbp;
	if ((nrec = pmUnpackEventRecords(&vset, 0, &res)) < 0)
		return -1;
	for (i = 0; i < nrec; i++) {
		int	j, ours = 0;

		/* ours carry the stack parameter; the "missed N" record does not */
		for (j = 0; j < res[i]->numpmid; j++)
			ours |= res[i]->vset[j]->pmid == pmID_build(170, 1, 10);
		if (ours)
			n++;
		else
			(*missed)++;
	}
	pmFreeEventResult(res);
	return n;
}

static void
append(int n)
{
	struct stack_event	ev = { .stack = "main;f", .count = 1, .value_us = 10101,
				       .pid = 1, .tid = 1, .comm = "a", .process = "a" };
	struct timeval		now;
	int			i;

	gettimeofday(&now, NULL);
	for (i = 0; i < n; i++)
		CHECK_INT(events_append(q, &ev, &now), 0);
}

int
main(void)
{
	pmID	params[EP_NPARAMS];
	int	i, missed;

	for (i = 0; i < EP_NPARAMS; i++)
		params[i] = pmID_build(170, 1, 10 + i);
	q = events_new("on-cpu", 4096);
	CHECK(q != NULL);
	CHECK_INT(events_set_params(q, params), 0);

	append(3);				/* nobody reads yet: not kept */
	CHECK_INT(fetch_count(1, &missed), 0);	/* client 1 registers */
	CHECK_INT(fetch_count(2, &missed), 0);	/* client 2 registers */
	append(2);
	CHECK_INT(fetch_count(1, &missed), 2);
	CHECK_INT(fetch_count(1, &missed), 0);	/* fast client: nothing twice */
	append(1);
	CHECK_INT(fetch_count(1, &missed), 1);
	CHECK_INT(fetch_count(2, &missed), 3);	/* slow client: all three once */
	CHECK_INT(missed, 0);
	CHECK_INT(fetch_count(2, &missed), 0);

	/* neither fetches while 200 records arrive; 4 KB hold about 40 */
	append(200);
	i = fetch_count(1, &missed);
	CHECK(i > 0 && i < 200);
	CHECK_INT(missed, 1);			/* one "missed" record */
	i = fetch_count(2, &missed);
	CHECK(i > 0 && i < 200);
	CHECK_INT(missed, 1);
	{
		struct event_stats	st;

		events_get_stats(q, &st);
		CHECK_INT(st.dropped + i, 200);	/* dropped + kept = appended */
		CHECK_INT(st.records, 206);
	}
	events_client_end(q, 1);
	events_client_end(q, 2);
	append(1);				/* no readers left: nothing kept */
	{
		struct event_stats	st;

		events_get_stats(q, &st);
		CHECK_INT(st.queued_bytes, 0);
	}
	events_free(q);
	return unit_report("test_events");
}
