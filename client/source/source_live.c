/*
 * source_live.c - poll stackprof.<event>.stacks on one or more pmcd hosts.
 *
 * pmcd keeps an event queue per client context, so every record drained
 * by the PMDA after our first fetch reaches us exactly once, whatever -t
 * is; -t only bounds how long records wait in that queue.  Windows are cut
 * on wall-clock time: every --period, and at the end (--duration, SIGINT
 * or SIGTERM).  With heat maps wanted, the same fetch brings the heat map
 * counters (fetch.c): one poll loop and one error policy for every format.
 * A host whose pmcd or agent restarts is taken up again where it left off,
 * and the gap reported (live_host.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "live_host.h"
#include "source.h"
#include "common/util.h"

volatile int	source_stop;

static int
fetch_all(struct live_host *hosts, int n, const struct source_consumer *c)
{
	int	i, sts;

	for (i = 0; i < n; i++)
		if (hosts[i].same_as < 0 && (sts = live_host_poll(&hosts[i], c)) < 0)
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
	/* pmcd restarting takes seconds: try again every 1, 2, then 4 s
	 * rather than libpcp's 5 to 60 (a user's setting wins) */
	setenv("PMCD_RECONNECT_TIMEOUT", "1,2,4", 0);
	for (i = 0; i < o->nhosts && sts == 0; i++)
		sts = live_host_open(&hosts[i], err, errlen);
	for (i = 0; i < o->nhosts && sts == 0; i++)
		if ((hosts[i].same_as = same_pmcd(hosts, i)) < 0)
			sts = live_host_lookup(&hosts[i], o->metrics, c, err, errlen);
	return sts;
}

/* End window w at time t; hosts still down say so first. */
static int
window_end(struct live_host *hosts, int n, const struct source_consumer *c,
	   struct window *w, double t)
{
	int	i, sts = 0;

	for (i = 0; i < n && sts == 0; i++)
		if (hosts[i].same_as < 0)
			sts = live_host_cut(&hosts[i], c, t);
	w->end = t;
	return sts < 0 ? sts : c->end(c->arg, w);
}

/* End window w at time t and open the next one there. */
static int
cut(struct live_host *hosts, int n, const struct source_consumer *c, struct window *w,
    double t)
{
	int	sts;

	if ((sts = window_end(hosts, n, c, w, t)) < 0)
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
			if ((sts = cut(hosts, o->nhosts, c, w, t)) < 0)
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
	if (sts == 0 && (sts = fetch_all(hosts, o->nhosts, c)) == 0)
		sts = window_end(hosts, o->nhosts, c, &w, wallclock_now());
	if (sts < 0 && sts != -1 && err[0] == '\0')
		snprintf(err, errlen, "%s", strerror(-sts));
	for (i = 0; i < o->nhosts; i++)
		if (hosts[i].ctx >= 0)
			pmDestroyContext(hosts[i].ctx);
	free(hosts);
	return sts < 0 ? -1 : 0;
}
