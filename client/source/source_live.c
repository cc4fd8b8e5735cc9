/*
 * source_live.c - poll stackprof.<event>.stacks on one or more pmcd hosts.
 *
 * pmcd keeps an event queue per client context, so every record drained
 * by the PMDA after our first fetch reaches us exactly once, whatever -t
 * is; -t only bounds how long records wait in that queue.  Windows are cut
 * on wall-clock time: every --period, and at the end (--duration, SIGINT
 * or SIGTERM).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "records.h"
#include "source.h"
#include "common/util.h"

volatile int	source_stop;

struct live_host {
	const char		*spec;		/* as given with -h */
	char			label[256];	/* pmcd's own host name */
	int			ctx;
	int			last_error;	/* reported once until it changes */
	int			same_as;	/* index of an earlier -h for the same pmcd, or -1 */
	struct record_ids	ids;
};

static int
host_open(struct live_host *h, char *err, size_t errlen)
{
	if ((h->ctx = pmNewContext(PM_CONTEXT_HOST, h->spec)) < 0) {
		snprintf(err, errlen, "cannot connect to pmcd on host %s: %s",
			 h->spec, pmErrStr(h->ctx));
		return -1;
	}
	if (pmGetContextHostName_r(h->ctx, h->label, sizeof(h->label)) == NULL ||
	    h->label[0] == '\0')
		snprintf(h->label, sizeof(h->label), "%s", h->spec);
	return 0;
}

static int
host_lookup(struct live_host *h, const struct event_metrics *m, char *err, size_t errlen)
{
	char	where[300];

	snprintf(where, sizeof(where), "host %s", h->spec);
	pmUseContext(h->ctx);
	return record_ids_lookup(m, where, "is the stackprof PMDA installed?",
				 &h->ids, err, errlen);
}

/* Fetch one host's new records; a failed fetch is reported, not fatal. */
static int
host_fetch(struct live_host *h, stack_sample_fn fn, void *arg)
{
	struct record_counts	counts = { .first = INFINITY };
	pmResult		*rp;
	int			sts;

	if ((sts = pmUseContext(h->ctx)) >= 0 && (sts = pmFetch(1, &h->ids.stacks, &rp)) >= 0) {
		if (rp->numpmid == 1 && rp->vset[0]->numval > 0)
			sts = records_deliver(rp->vset[0], &h->ids, h->label, -INFINITY, INFINITY,
					      fn, arg, &counts);
		pmFreeResult(rp);
	}
	if (sts < 0 && sts > -4096 && sts != h->last_error) {
		/* a PCP error (not the callback's -ENOMEM): pmcd restarts, lost
		 * connections; libpcp reconnects, we keep polling */
		fprintf(stderr, "%s: warning: host %s: %s\n", pmGetProgname(), h->spec,
			pmErrStr(sts));
		h->last_error = sts;
		return 0;
	}
	if (sts >= 0)
		h->last_error = 0;
	return sts == -ENOMEM ? sts : 0;
}

static int
fetch_all(struct live_host *hosts, int n, stack_sample_fn fn, void *arg)
{
	int	i, sts;

	for (i = 0; i < n; i++)
		if (hosts[i].same_as < 0 && (sts = host_fetch(&hosts[i], fn, arg)) < 0)
			return sts;
	return 0;
}

/*
 * Two -h naming the same pmcd (local: and localhost) would count every
 * stack twice under one host name: keep the first, say so.
 */
static int
same_pmcd(const struct live_host *hosts, int i)
{
	int	j;

	for (j = 0; j < i; j++)
		if (hosts[j].same_as < 0 && strcmp(hosts[j].label, hosts[i].label) == 0) {
			fprintf(stderr, "%s: warning: -h %s is pmcd on %s again, as -h %s: "
				"reading it once\n", pmGetProgname(), hosts[i].spec,
				hosts[i].label, hosts[j].spec);
			return j;
		}
	return -1;
}

int
source_live_run(const struct live_options *o, stack_sample_fn fn,
		window_fn wfn, void *arg, char *err, size_t errlen)
{
	struct live_host	*hosts = calloc((size_t)o->nhosts, sizeof(*hosts));
	struct window		w = { NULL, 0, 0 };
	double			t, next_fetch, stop_at, next_cut;
	int			i, sts = 0;

	if (hosts == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < o->nhosts; i++) {
		hosts[i].spec = o->hosts[i];
		hosts[i].ctx = -1;
	}
	/* connect to all before asking any for metrics: an unknown host is
	 * the first thing to report */
	for (i = 0; i < o->nhosts && sts == 0; i++)
		sts = host_open(&hosts[i], err, errlen);
	for (i = 0; i < o->nhosts && sts == 0; i++)
		if ((hosts[i].same_as = same_pmcd(hosts, i)) < 0)
			sts = host_lookup(&hosts[i], o->metrics, err, errlen);
	if (sts == 0 && o->ready != NULL)
		sts = o->ready(arg, err, errlen);
	/* the first fetch makes pmcd start a queue for us; it holds nothing older */
	if (sts == 0)
		sts = fetch_all(hosts, o->nhosts, fn, arg);
	w.start = t = wallclock_now();
	next_fetch = t + o->interval;
	stop_at = o->duration > 0 ? t + o->duration : INFINITY;
	next_cut = o->period > 0 ? t + o->period : INFINITY;
	while (sts == 0 && !source_stop) {
		sleep_until(fmin(fmin(next_fetch, stop_at), next_cut));
		if (source_stop)
			break;
		if ((sts = fetch_all(hosts, o->nhosts, fn, arg)) < 0)
			break;
		t = wallclock_now();
		if (t >= stop_at)
			break;
		if (t >= next_cut) {
			w.end = t;
			if ((sts = wfn(arg, &w)) < 0)
				break;
			w.start = t;
			while (next_cut <= t)
				next_cut += o->period;
		}
		while (next_fetch <= t)
			next_fetch += o->interval;
	}
	if (sts == 0) {
		/* what was drained since the last fetch belongs to the last window */
		if ((sts = fetch_all(hosts, o->nhosts, fn, arg)) == 0) {
			w.end = wallclock_now();
			sts = wfn(arg, &w);
		}
	} else if (sts != -1 && err[0] == '\0')
		snprintf(err, errlen, "%s", strerror(-sts));
	for (i = 0; i < o->nhosts; i++)
		if (hosts[i].ctx >= 0)
			pmDestroyContext(hosts[i].ctx);
	free(hosts);
	return sts < 0 ? -1 : 0;
}
