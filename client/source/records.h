/*
 * records.h - decode stackprof.oncpu.stacks event records (the same for a
 * live pmcd context and an archive context) into stack_samples.
 */
#ifndef RECORDS_H
#define RECORDS_H

#include <pcp/pmapi.h>
#include "common/sample.h"
#include "source.h"

enum record_param {
	RP_STACK, RP_COUNT, RP_PID, RP_TID, RP_COMM, RP_PROCESS, RP_TYPE, RP_VALUE, RP_NPARAMS
};

struct record_ids {
	pmID	stacks;			/* the event metric */
	int	stacks_type;		/* PM_TYPE_EVENT or PM_TYPE_HIGHRES_EVENT */
	pmID	param[RP_NPARAMS];
	int	type[RP_NPARAMS];	/* PM_TYPE_* of each parameter */
};

/*
 * Look the names up in the current context.  -1 with err when the metric is
 * missing (PMDA not installed, or the archive did not log it).
 */
int record_ids_lookup(const struct event_metrics *m, const char *where, const char *hint,
		      struct record_ids *ids, char *err, size_t errlen);

/* What a batch of records gave; records outside the range are counted. */
struct record_counts {
	unsigned long	records;	/* in range and handed over */
	unsigned long	before, after;	/* outside (from, to] */
	unsigned long	malformed;	/* missing stack or count parameter */
	double		first, last;	/* oldest and newest handed over */
};

/*
 * Hand s to fn when from < s->time <= to, else count it as before or
 * after; count what fn took.  Every decoder (records, history) ends here.
 * Returns 0 or fn's negative result.
 */
int records_offer(const struct stack_sample *s, double from, double to,
		  stack_sample_fn fn, void *arg, struct record_counts *c);

/*
 * Unpack the records of vs (the event metric's value set) and hand those
 * with from < timestamp <= to to fn (use +-INFINITY for no bound).
 * Returns 0 or fn's negative result, or a PCP error.
 */
int records_deliver(const pmValueSet *vs, const struct record_ids *ids, const char *host,
		    double from, double to, stack_sample_fn fn, void *arg,
		    struct record_counts *counts);

#endif /* RECORDS_H */
