/*
 * control.c - stores into stackprof.control.*, validated and root-only.
 *
 * pmcd tells us each client's user id (PMDA_FLAG_AUTHORIZE); a store from a
 * context whose user id is not 0, or is unknown, is refused with
 * PM_ERR_PERMISSION.  A bad value is refused with PM_ERR_BADSTORE (or
 * PM_ERR_CONV), logged, and changes nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent.h"
#include "agent/control_parse.h"
#include "metrics.h"

/* user id per client context; -1 = not told */
static int	*context_uid;
static int	ncontexts;

static int
uid_of(int ctx)
{
	return ctx >= 0 && ctx < ncontexts ? context_uid[ctx] : -1;
}

static void
set_uid(int ctx, int uid)
{
	if (ctx < 0)
		return;
	if (ctx >= ncontexts) {
		int	n = ctx + 16, i;
		int	*v = realloc(context_uid, n * sizeof(*v));

		if (v == NULL) {
			pmNoMem("context uids", n * sizeof(*v), PM_RECOV_ERR);
			return;	/* unknown uid: stores stay refused */
		}
		for (i = ncontexts; i < n; i++)
			v[i] = -1;
		context_uid = v;
		ncontexts = n;
	}
	context_uid[ctx] = uid;
}

int
control_attribute(int ctx, int attr, const char *value, int length, pmdaExt *pmda)
{
	if (attr == PMDA_ATTR_USERID && value != NULL)
		set_uid(ctx, atoi(value));
	return pmdaAttribute(ctx, attr, value, length, pmda);
}

void
control_end_context(int ctx)
{
	if (ctx >= 0 && ctx < ncontexts)
		context_uid[ctx] = -1;
}

static int
store_number(unsigned item, unsigned value)
{
	int	sts;

	switch (item) {
	case CTL_ENABLED:
		if (value > 1)
			return PM_ERR_BADSTORE;
		return agent_set_enabled(value == 1);
	case CTL_FREQUENCY:
		if (value < AGENT_FREQ_MIN || value > AGENT_FREQ_MAX)
			return PM_ERR_BADSTORE;
		return agent_set_frequency(value);
	case CTL_INTERVAL:
		if (value < AGENT_INTERVAL_MIN || value > AGENT_INTERVAL_MAX)
			return PM_ERR_BADSTORE;
		return agent_set_interval(value);
	case CTL_HEATMAP_SLOTS:
		if ((sts = control_check_slots(value)) < 0)
			return sts;
		if (value == agent.heatmap_slots)
			return 0;
		if ((sts = metrics_refresh_slots(value)) < 0)
			return sts;
		if ((sts = agent_set_heatmap_slots(value)) < 0)
			metrics_refresh_slots(agent.heatmap_slots);
		return sts;
	}
	return PM_ERR_PERMISSION;	/* not a storable metric */
}

static int
store_text(unsigned item, const char *text)
{
	int	sts;

	switch (item) {
	case CTL_PROCESS:
		if ((sts = control_check_regex(text)) < 0)
			return sts;
		return agent_set_process_regex(text);
	case CTL_PIDS:
		return agent_set_pids(text);	/* parses and validates */
	}
	return PM_ERR_PERMISSION;
}

/* One metric of a store PDU: decode the value and hand it over. */
static int
store_one(pmValueSet *vsp, pmdaExt *pmda)
{
	unsigned	cluster = pmID_cluster(vsp->pmid), item = pmID_item(vsp->pmid);
	pmDesc		*desc = NULL;
	pmAtomValue	atom;
	int		i, sts;

	for (i = 0; i < pmda->e_nmetrics; i++)
		if (pmda->e_metrics[i].m_desc.pmid == vsp->pmid)
			desc = &pmda->e_metrics[i].m_desc;
	if (desc == NULL)
		return PM_ERR_PMID;
	if (cluster != CL_CONTROL)
		return PM_ERR_PERMISSION;	/* read-only metric */
	if (vsp->numval != 1)
		return PM_ERR_BADSTORE;
	if ((sts = pmExtractValue(vsp->valfmt, &vsp->vlist[0], desc->type, &atom, desc->type)) < 0)
		return sts;
	if (desc->type == PM_TYPE_STRING) {
		sts = store_text(item, atom.cp);
		free(atom.cp);
	} else {
		sts = store_number(item, atom.ul);
	}
	return sts;
}

static const char *const control_names[] = {
	[CTL_ENABLED] = "stackprof.control.enabled",
	[CTL_FREQUENCY] = "stackprof.control.frequency",
	[CTL_PROCESS] = "stackprof.control.process",
	[CTL_PIDS] = "stackprof.control.pids",
	[CTL_INTERVAL] = "stackprof.control.interval",
	[CTL_HEATMAP_SLOTS] = "stackprof.control.heatmap_slots",
};

static void
log_refusal(pmValueSet *vsp, int sts, int uid)
{
	unsigned	item = pmID_item(vsp->pmid);
	char		name[64];

	if (pmID_cluster(vsp->pmid) == CL_CONTROL && item <= CTL_HEATMAP_SLOTS)
		pmsprintf(name, sizeof(name), "%s", control_names[item]);
	else
		pmsprintf(name, sizeof(name), "%s", pmIDStr(vsp->pmid));
	if (sts == PM_ERR_PERMISSION)
		pmNotifyErr(LOG_WARNING, "store to %s refused: uid %d is not root", name, uid);
	else
		pmNotifyErr(LOG_WARNING, "store to %s refused: %s", name, pmErrStr(sts));
}

int
control_store(pmResult *result, pmdaExt *pmda)
{
	int	i, sts, uid = uid_of(pmda->e_context);

	for (i = 0; i < result->numpmid; i++) {
		pmValueSet	*vsp = result->vset[i];

		if (uid != 0) {
			agent.stats.denied_stores++;
			log_refusal(vsp, PM_ERR_PERMISSION, uid);
			return PM_ERR_PERMISSION;
		}
		if ((sts = store_one(vsp, pmda)) < 0) {
			agent.stats.bad_stores++;
			log_refusal(vsp, sts, uid);
			return sts;
		}
	}
	return 0;
}
