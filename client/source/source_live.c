/*
 * source_live.c - poll stackprof.<event>.stacks on one or more pmcd hosts.
 *
 * pmcd keeps an event queue per client context, so every record drained
 * by the PMDA after our first fetch reaches us exactly once, whatever -t
 * is; -t only bounds how long records wait in that queue.  Windows are cut
 * on wall-clock time: every --period, and at the end (--duration, SIGINT
 * or SIGTERM).  With heat maps wanted, the same fetch brings the heat map
 * counters (fetch.c): one poll loop and one error policy for every format.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fetch.h"
#include "source.h"
#include "common/util.h"

volatile int	source_stop;

struct live_host {
	const char		*spec;		/* as given with -h */
	char			label[256];	/* pmcd's own host name */
	int			ctx;
	int			last_error;	/* reported once until it changes */
	int			same_as;	/* index of an earlier -h for the same pmcd, or -1 */
	struct fetch_set	fetch;
	double			since;		/* pmcd's time of our first fetch; NAN before */
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
host_lookup(struct live_host *h, const struct event_metrics *m,
	    const struct source_consumer *c, char *err, size_t errlen)
{
	char	where[300];

	snprintf(where, sizeof(where), "host %s", h->spec);
	pmUseContext(h->ctx);
	return fetch_lookup(&h->fetch, m, c, where, false, err, errlen);
}

/*
 * The one policy for a fetch that failed, whatever the formats: pmcd
 * restarting, a lost connection, PM_ERR_TIMEOUT, PM_ERR_IPC, records
 * libpcp cannot unpack.  Said once until it changes; polling goes on and
 * libpcp reconnects.  Only a consumer's error (out of memory, a failed
 * write) ends a live run.
 */
static void
fetch_failed(struct live_host *h, int sts)
{
	if (sts != h->last_error)
		fprintf(stderr, "%s: warning: host %s: %s\n", pmGetProgname(), h->spec,
			pmErrStr(sts));
	h->last_error = sts;
}

/*
 * Fetch one host's new records (and heat map counters); 0 or the consumer's
 * error.  Records drained before our first fetch (a queue's backlog: pmcd
 * may hand a new client records other clients have not read yet) cover
 * time before the run, so they belong to no window; pmcd's own clock says
 * which they are.
 */
static int
host_fetch(struct live_host *h, const struct source_consumer *c)
{
	struct fetch_counts	n = { .first = INFINITY };
	struct fetch_range	r;
	pmResult		*rp;
	int			sts;

	if ((sts = pmUseContext(h->ctx)) < 0 ||
	    (sts = pmFetch(h->fetch.npmids, h->fetch.pmids, &rp)) < 0) {
		fetch_failed(h, sts);
		return 0;
	}
	if (isnan(h->since))
		h->since = tv_secs(&rp->timestamp);
	r = (struct fetch_range){ h->since, INFINITY, h->since, INFINITY };
	sts = fetch_deliver(&h->fetch, rp, h->label, &r, false, c, &n);
	if (n.bad_heat)
		fprintf(stderr, "%s: warning: host %s: unexpected %s instances at %.3f, skipped\n",
			pmGetProgname(), h->spec, HEATMAP_METRIC,
			rp->timestamp.tv_sec + rp->timestamp.tv_usec / 1e6);
	pmFreeResult(rp);
	if (sts < 0)
		return sts;
	if (n.decode_error)
		fetch_failed(h, n.decode_error);
	else
		h->last_error = 0;
	return 0;
}

static int
fetch_all(struct live_host *hosts, int n, const struct source_consumer *c)
{
	int	i, sts;

	for (i = 0; i < n; i++)
		if (hosts[i].same_as < 0 && (sts = host_fetch(&hosts[i], c)) < 0)
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

/* Connect to all before asking any for metrics: an unknown host is the
 * first thing to report. */
static int
hosts_open(struct live_host *hosts, const struct live_options *o,
	   const struct source_consumer *c, char *err, size_t errlen)
{
	int	i, sts = 0;

	for (i = 0; i < o->nhosts; i++) {
		hosts[i].spec = o->hosts[i];
		hosts[i].ctx = -1;
		hosts[i].since = NAN;
	}
	for (i = 0; i < o->nhosts && sts == 0; i++)
		sts = host_open(&hosts[i], err, errlen);
	for (i = 0; i < o->nhosts && sts == 0; i++)
		if ((hosts[i].same_as = same_pmcd(hosts, i)) < 0)
			sts = host_lookup(&hosts[i], o->metrics, c, err, errlen);
	return sts;
}

/* End window w at time t and open the next one there. */
static int
cut(const struct source_consumer *c, struct window *w, double t)
{
	int	sts;

	w->end = t;
	if ((sts = c->end(c->arg, w)) < 0)
		return sts;
	w->start = t;
	w->end = INFINITY;
	return c->begin ? c->begin(c->arg, w) : 0;
}

/* Fetch every interval, cut every period, until the end or a signal. */
static int
poll_hosts(struct live_host *hosts, const struct live_options *o,
	   const struct source_consumer *c, struct window *w)
{
	double	t = w->start, next_fetch = t + o->interval;
	double	stop_at = o->duration > 0 ? t + o->duration : INFINITY;
	double	next_cut = o->period > 0 ? t + o->period : INFINITY;
	int	sts = 0;

	while (sts == 0 && !source_stop) {
		sleep_until(fmin(fmin(next_fetch, stop_at), next_cut));
		if (source_stop)
			break;
		if ((sts = fetch_all(hosts, o->nhosts, c)) < 0)
			break;
		t = wallclock_now();
		if (t >= stop_at)
			break;
		if (t >= next_cut) {
			if ((sts = cut(c, w, t)) < 0)
				break;
			while (next_cut <= t)
				next_cut += o->period;
		}
		while (next_fetch <= t)
			next_fetch += o->interval;
	}
	return sts;
}

int
source_live_run(const struct live_options *o, const struct source_consumer *c,
		char *err, size_t errlen)
{
	struct live_host	*hosts = calloc((size_t)o->nhosts, sizeof(*hosts));
	struct window		w = { NULL, 0, INFINITY };
	int			i, sts;

	if (hosts == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sts = hosts_open(hosts, o, c, err, errlen);
	if (sts == 0 && o->ready != NULL)
		sts = o->ready(c->arg, err, errlen);
	w.start = wallclock_now();
	if (sts == 0 && c->begin != NULL)
		sts = c->begin(c->arg, &w);
	/* the first fetch makes pmcd start a queue for us, and is the heat
	 * map counters' baseline */
	if (sts == 0)
		sts = fetch_all(hosts, o->nhosts, c);
	if (sts == 0)
		sts = poll_hosts(hosts, o, c, &w);
	/* what was drained since the last fetch belongs to the last window */
	if (sts == 0 && (sts = fetch_all(hosts, o->nhosts, c)) == 0) {
		w.end = wallclock_now();
		sts = c->end(c->arg, &w);
	}
	if (sts < 0 && sts != -1 && err[0] == '\0')
		snprintf(err, errlen, "%s", strerror(-sts));
	for (i = 0; i < o->nhosts; i++)
		if (hosts[i].ctx >= 0)
			pmDestroyContext(hosts[i].ctx);
	free(hosts);
	return sts < 0 ? -1 : 0;
}
