/*
 * live_host.c - one pmcd host of a live run, through pmcd and agent
 * restarts (live_host.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "live_host.h"
#include "common/util.h"

#define PMCD_PID_METRIC	"pmcd.pid"
#define DRAINS_METRIC	"stackprof.stats.drains"

int
live_host_open(struct live_host *h, char *err, size_t errlen)
{
	h->down_since = NAN;
	h->last_ok = wallclock_now();
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

int
live_host_lookup(struct live_host *h, const struct event_metrics *m,
		 const struct source_consumer *c, char *err, size_t errlen)
{
	const char	*names[2] = { PMCD_PID_METRIC, DRAINS_METRIC };
	pmID		ids[2];
	int		types[2];
	pmDesc		d;
	char		where[300];
	int		i;

	snprintf(where, sizeof(where), "host %s", h->spec);
	pmUseContext(h->ctx);
	if (fetch_lookup(&h->fetch, m, c, where, false, err, errlen) < 0)
		return -1;
	memcpy(h->pmids, h->fetch.pmids, (size_t)h->fetch.npmids * sizeof(pmID));
	h->npmids = h->fetch.npmids;
	/* witnesses of a restart; without them only failed fetches are seen */
	if (pmLookupName(2, names, ids) < 0)
		ids[0] = ids[1] = PM_ID_NULL;
	for (i = 0; i < 2; i++) {
		types[i] = PM_TYPE_UNKNOWN;
		if (ids[i] != PM_ID_NULL && pmLookupDesc(ids[i], &d) >= 0) {
			types[i] = d.type;
			h->pmids[h->npmids++] = ids[i];
		} else
			ids[i] = PM_ID_NULL;
	}
	h->pmcd_pid = ids[0];
	h->pid_type = types[0];
	h->drains = ids[1];
	h->drains_type = types[1];
	return 0;
}

/* A host goes (or stays) down: said once, with the first error seen. */
static void
went_down(struct live_host *h, int sts, unsigned trouble)
{
	if (isnan(h->down_since)) {
		h->down_since = h->last_ok;
		h->trouble = 0;
		h->down_error = sts;
		fprintf(stderr, "%s: warning: host %s: %s: no data until it is back\n",
			pmGetProgname(), h->spec, pmErrStr(sts));
	}
	h->trouble |= trouble;
}

static const char *
trouble_text(unsigned t)
{
	if (t & LT_PMCD_RESTART)
		return "pmcd restarted";
	if (t & LT_AGENT_RESTART)
		return "stackprof agent restarted";
	if (t & LT_AGENT)
		return "stackprof agent not answering";
	return "pmcd connection lost";
}

static int
report_gap(struct live_host *h, const struct source_consumer *c, double end,
	   const char *why)
{
	struct data_gap	g = { h->label, h->down_since, end, why };

	return c->gap ? c->gap(c->arg, &g) : 0;
}

/*
 * Data again after a gap: hand it over, say so, start the heat map's
 * counters afresh, and never take a record we were already given.
 */
static int
came_back(struct live_host *h, const struct source_consumer *c, double now)
{
	char	why[160];
	int	sts;

	snprintf(why, sizeof(why), "%s; records not fetched before it are lost",
		 trouble_text(h->trouble));
	fprintf(stderr, "%s: host %s: back after %.1f s without data (%s)\n",
		pmGetProgname(), h->spec, now - h->down_since, why);
	h->rebase = true;
	if (h->newest > h->since)
		h->since = h->newest;
	sts = report_gap(h, c, now, why);
	h->down_since = NAN;
	return sts;
}

/* The value of pmid in rp as u64: 1, 0 if absent, or the PCP error. */
static int
value_of(const pmResult *rp, pmID pmid, int type, uint64_t *v)
{
	pmAtomValue	atom;
	int		j, sts;

	for (j = 0; j < rp->numpmid; j++) {
		const pmValueSet *vs = rp->vset[j];

		if (vs->pmid != pmid || pmid == PM_ID_NULL)
			continue;
		if (vs->numval < 0)
			return vs->numval;
		if (vs->numval == 0)
			return 0;
		if ((sts = pmExtractValue(vs->valfmt, &vs->vlist[0], type, &atom,
					  PM_TYPE_U64)) < 0)
			return sts;
		*v = atom.ull;
		return 1;
	}
	return 0;
}

/* stackprof's values in rp: an error when its agent is not there. */
static int
agent_error(const struct live_host *h, const pmResult *rp)
{
	int	j;

	for (j = 0; j < rp->numpmid; j++)
		if (rp->vset[j]->pmid != h->pmcd_pid && rp->vset[j]->numval < 0)
			return rp->vset[j]->numval;
	return 0;
}

/*
 * What rp says about the other end: pmcd's pid and the agent's drain
 * count against the last good fetch's.  Returns the trouble bits of a
 * restart that happened since.
 */
static unsigned
restarts_seen(struct live_host *h, const pmResult *rp)
{
	uint64_t	pid = 0, drains = 0;
	unsigned	t = 0;

	if (value_of(rp, h->pmcd_pid, h->pid_type, &pid) == 1) {
		if (h->pid_seen != 0 && pid != h->pid_seen)
			t |= LT_PMCD_RESTART;
		h->pid_seen = (uint32_t)pid;
	}
	if (value_of(rp, h->drains, h->drains_type, &drains) == 1) {
		if (h->have_drains && drains < h->drains_seen)
			t |= LT_AGENT_RESTART;
		h->drains_seen = drains;
		h->have_drains = true;
	}
	return t;
}

/* Hand over what rp holds; 0 or the consumer's error. */
static int
deliver(struct live_host *h, const pmResult *rp, const struct source_consumer *c)
{
	struct fetch_counts	n = { .first = INFINITY };
	struct fetch_range	r;
	int			sts;

	if (isnan(h->since))
		h->since = tv_secs(&rp->timestamp);
	r = (struct fetch_range){ h->since, INFINITY, h->since, INFINITY };
	sts = fetch_deliver(&h->fetch, rp, h->label, &r, h->rebase, c, &n);
	h->rebase = false;
	if (n.in_window > 0 && n.last > h->newest)
		h->newest = n.last;
	if (n.bad_heat)
		fprintf(stderr, "%s: warning: host %s: unexpected %s instances at %.3f, skipped\n",
			pmGetProgname(), h->spec, HEATMAP_METRIC, tv_secs(&rp->timestamp));
	if (sts < 0)
		return sts;
	if (n.decode_error && n.decode_error != h->last_error)
		fprintf(stderr, "%s: warning: host %s: %s\n", pmGetProgname(), h->spec,
			pmErrStr(n.decode_error));
	h->last_error = n.decode_error;
	return 0;
}

/* Reconnect a lost context; false while pmcd is not back (paced by libpcp). */
static bool
reconnect(struct live_host *h)
{
	if (pmReconnectContext(h->ctx) < 0)
		return false;
	h->lost = false;
	return true;
}

int
live_host_poll(struct live_host *h, const struct source_consumer *c)
{
	double		now = wallclock_now();
	unsigned	restarted;
	pmResult	*rp;
	int		sts;

	if (h->lost && !reconnect(h))
		return 0;
	if ((sts = pmUseContext(h->ctx)) < 0 ||
	    (sts = pmFetch(h->npmids, h->pmids, &rp)) < 0) {
		h->lost = true;
		went_down(h, sts, LT_LINK);
		return 0;
	}
	restarted = restarts_seen(h, rp);
	if ((sts = agent_error(h, rp)) < 0) {
		pmFreeResult(rp);
		went_down(h, sts, LT_AGENT | restarted);
		return 0;
	}
	if (restarted && isnan(h->down_since)) {	/* between two polls */
		h->down_since = h->last_ok;
		h->trouble = 0;
	}
	h->trouble |= restarted;
	sts = isnan(h->down_since) ? 0 : came_back(h, c, now);
	if (sts == 0)
		sts = deliver(h, rp, c);
	pmFreeResult(rp);
	h->last_ok = now;
	return sts;
}

int
live_host_cut(struct live_host *h, const struct source_consumer *c, double t)
{
	char	why[160];

	if (isnan(h->down_since))
		return 0;
	snprintf(why, sizeof(why), "%s; not back by the end of the period",
		 trouble_text(h->trouble));
	return report_gap(h, c, t, why);
}
