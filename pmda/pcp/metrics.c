/*
 * metrics.c - what pmdastackprof serves, and how a fetch finds it.
 *
 *   stackprof.control.*                    the control table's rows
 *                                          (agent/control_table.c)
 * and for each profile of agent/profiles.c (oncpu: PMID cluster 1):
 *   stackprof.oncpu.stacks           event one record per process/thread/stack
 *   stackprof.oncpu.record.*               its parameters
 *   stackprof.oncpu.folded           str   per process: last interval, folded
 *   stackprof.oncpu.samples          u64   per process: cumulative samples
 *   stackprof.oncpu.history          str   per client: the drains it has not
 *                                          seen, as ids and counts (archives)
 *   stackprof.oncpu.flame            u64   per (thread, stack) of the last
 *                                          drain, named as bpftrace prints a
 *                                          stack (grafana-pcp's flame graph)
 *   stackprof.heatmap.oncpu          u64   per slot: cumulative samples
 *   stackprof.stats.*                      the parts' stats tables, one
 *                                          cluster each (metrics_stats.c)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/controls.h"
#include "control.h"
#include "metrics.h"
#include "pcp_priv.h"
#include "lib/array.h"

#define UNITS_NONE	PMDA_PMUNITS(0, 0, 0, 0, 0, 0)
#define UNITS_COUNT	PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE)
#define UNITS_HZ	PMDA_PMUNITS(0, -1, 1, 0, PM_TIME_SEC, PM_COUNT_ONE)
#define UNITS_MSEC	PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_MSEC, 0)
#define UNITS_USEC	PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_USEC, 0)
#define UNITS_SEC	PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_SEC, 0)

#define METRIC(cl, it, type, indom, sem, units) \
	{ NULL, { PMDA_PMID(cl, it), type, indom, sem, units } }

/*
 * libpcp_pmda calls the end-of-context hook with the context number alone
 * (no pmdaExt), so the face that registered it is kept here for it; no
 * other code reads this.
 */
static struct pcp_face	*ending_face;

/* The metrics of each profile; build_metrics puts them in the row's
 * cluster and gives counts the row's units. */
static const pmdaMetric profile_metrics[] = {
	METRIC(0, PROF_STACKS, PM_TYPE_EVENT, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_NONE),
	METRIC(0, PROF_FOLDED, PM_TYPE_STRING, INDOM_PROCESS, PM_SEM_INSTANT, UNITS_NONE),
	METRIC(0, PROF_SAMPLES, PM_TYPE_U64, INDOM_PROCESS, PM_SEM_COUNTER, UNITS_COUNT),
	METRIC(0, PROF_HISTORY, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_NONE),
	METRIC(0, PROF_FLAME, PM_TYPE_U64, INDOM_FLAME, PM_SEM_INSTANT, UNITS_COUNT),
	METRIC(0, REC_STACK, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(0, REC_COUNT, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_COUNT),
	METRIC(0, REC_PID, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(0, REC_TID, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(0, REC_COMM, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(0, REC_PROCESS, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(0, REC_TYPE, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(0, REC_VALUE, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_USEC),
};
#define NPROFILE_METRICS	(sizeof(profile_metrics) / sizeof(profile_metrics[0]))

/* Every metric but the controls', the profiles' and the stats'. */
static const pmdaMetric fixed_metrics[] = {
	METRIC(CL_HEATMAP, HEAT_ONCPU, PM_TYPE_U64, INDOM_HEATMAP_SLOT, PM_SEM_COUNTER, UNITS_COUNT),
};

static int
fetch_control(const struct agent *a, unsigned item, pmAtomValue *atom)
{
	const struct control	*c = control_by_item(item);

	if (c == NULL)
		return PM_ERR_PMID;
	if (c->type == CONTROL_STRING)
		atom->cp = (char *)control_text(a, c);
	else
		atom->ul = control_u32(a, c);
	return PMDA_FETCH_STATIC;
}

static int
fetch_history(struct profile *prof, pmAtomValue *atom)
{
	const char	*text;
	size_t		len;
	int		sts;

	if ((sts = history_fetch(prof->history, pmdaGetContext(), &text, &len)) < 0)
		return sts;
	if (text == NULL)
		return PMDA_FETCH_NOVALUES;
	atom->cp = (char *)text;
	return PMDA_FETCH_STATIC;
}

/* One instance of the last drain's flame view (refreshed before the fetch). */
static int
fetch_flame(struct profile *prof, unsigned inst, pmAtomValue *atom)
{
	const struct history_flame	*v;
	size_t				lo = 0, hi = history_flame(prof->history, &v);

	while (lo < hi) {
		size_t	mid = (lo + hi) / 2;

		if (v[mid].inst == (int)inst) {
			atom->ull = v[mid].count;
			return PMDA_FETCH_STATIC;
		}
		if (v[mid].inst < (int)inst)
			lo = mid + 1;
		else
			hi = mid;
	}
	return PM_ERR_INST;
}

static int
fetch_profile(struct profile *prof, unsigned item, unsigned inst, pmAtomValue *atom)
{
	struct window_proc	*p;

	if (item == PROF_FLAME)
		return fetch_flame(prof, inst, atom);
	if (item == PROF_STACKS)
		return events_fetch(prof->events, pmdaGetContext(), atom);
	if (item == PROF_HISTORY)
		return fetch_history(prof, atom);
	if (item >= REC_STACK)
		return PMDA_FETCH_NOVALUES;	/* only inside records */
	if ((p = window_lookup(prof->window, (int)inst)) == NULL)
		return PM_ERR_INST;
	if (item == PROF_FOLDED)
		atom->cp = p->folded;
	else if (item == PROF_SAMPLES)
		atom->ull = p->samples;
	else
		return PM_ERR_PMID;
	return PMDA_FETCH_STATIC;
}

static int
fetch_heatmap(struct pcp_face *face, unsigned inst, pmAtomValue *atom)
{
	struct sampler	*sampler = agent_sampler(face->agent);
	unsigned	slots = agent_heatmap_slots(face->agent), width = 1000 / slots;

	if (sampler == NULL)
		return PMDA_FETCH_NOVALUES;
	if (!face->snap.have_heatmap) {
		if (sampler_read_heatmap(sampler, face->snap.heatmap, slots) < 0)
			return PMDA_FETCH_NOVALUES;
		face->snap.have_heatmap = true;
	}
	/* instance id is the slot's offset in ms */
	if (inst % width != 0 || inst / width >= slots)
		return PM_ERR_INST;
	atom->ull = face->snap.heatmap[inst / width];
	return PMDA_FETCH_STATIC;
}

static int
fetch_value(pmdaMetric *mdesc, unsigned int inst, pmAtomValue *atom)
{
	struct pcp_face	*face = mdesc->m_user;
	unsigned	cluster = pmID_cluster(mdesc->m_desc.pmid);
	unsigned	item = pmID_item(mdesc->m_desc.pmid);
	const struct profile_def *def;

	switch (cluster) {
	case CL_CONTROL:	return fetch_control(face->agent, item, atom);
	case CL_HEATMAP:	return fetch_heatmap(face, inst, atom);
	}
	if ((def = profile_by_cluster(cluster)) == NULL)
		return metrics_stats_fetch(face, cluster, item, atom);
	return fetch_profile(agent_profile(face->agent, (int)(def - profile_defs)), item, inst, atom);
}

static int
by_inst(const void *a, const void *b)
{
	const pmdaInstid	*x = a, *y = b;

	return (x->i_inst > y->i_inst) - (x->i_inst < y->i_inst);
}

/* The process list changed (after each drain): the processes of every
 * profile's window, once each (a sleeper may be in the off-CPU window
 * alone); a profile's metrics have no value for the others. */
static void
refresh_processes(struct pcp_face *face)
{
	struct window_proc *const	*procs;
	size_t				i, k, n = 0, m;
	int				p;
	pmdaInstid			*v;

	for (p = 0; p < NPROFILES; p++)
		n += window_procs(agent_profile(face->agent, p)->window, &procs);
	if (array_resize(&face->proc_instances, n) < 0) {
		pmNoMem("process instances", n * sizeof(*v), PM_RECOV_ERR);
		face->indoms[INDOM_PROCESS].it_numinst = 0;	/* names may be stale */
		return;
	}
	v = face->proc_instances;
	for (n = 0, p = 0; p < NPROFILES; p++)
		for (i = 0, m = window_procs(agent_profile(face->agent, p)->window, &procs); i < m; i++) {
			v[n].i_inst = procs[i]->inst;
			v[n++].i_name = procs[i]->instname;
		}
	qsort(v, n, sizeof(*v), by_inst);
	for (i = k = 0; i < n; i++)
		if (k == 0 || v[k - 1].i_inst != v[i].i_inst)
			v[k++] = v[i];
	face->indoms[INDOM_PROCESS].it_set = v;
	face->indoms[INDOM_PROCESS].it_numinst = (int)k;
}

/* The heat map's instances follow stackprof.control.heatmap_slots; they
 * are rebuilt when a fetch or an instance request finds it changed. */
static void
refresh_slots(struct pcp_face *face)
{
	unsigned	i, slots = agent_heatmap_slots(face->agent), width;
	pmdaInstid	*v;
	char		(*nv)[8];

	if (slots == face->nslots || slots == 0)
		return;
	width = 1000 / slots;
	v = calloc(slots, sizeof(*v));
	nv = calloc(slots, sizeof(*nv));
	if (v == NULL || nv == NULL) {
		pmNoMem("heat map instances", slots * (sizeof(*v) + sizeof(*nv)), PM_RECOV_ERR);
		free(v);
		free(nv);
		return;	/* the old ones stay; fetches of moved slots fail */
	}
	for (i = 0; i < slots; i++) {
		/* offset of the slot in the second: sorts and reads as a time */
		snprintf(nv[i], sizeof(nv[i]), "%03ums", i * width);
		v[i].i_inst = (int)(i * width);
		v[i].i_name = nv[i];
	}
	free(face->slot_instances);
	free(face->slot_names);
	face->slot_instances = v;
	face->slot_names = nv;
	face->nslots = slots;
	face->indoms[INDOM_HEATMAP_SLOT].it_set = v;
	face->indoms[INDOM_HEATMAP_SLOT].it_numinst = (int)slots;
}

/* Profile p's flame instances: the last drain's, built when asked for. */
static void
refresh_flame(struct pcp_face *face, int p)
{
	const struct history_flame	*v;
	size_t				i, n = history_flame(agent_profile(face->agent, p)->history, &v);
	pmdaInstid			*ids;

	if (array_resize(&face->flame_instances[p], n) < 0) {
		face->indoms[INDOM_FLAME + p].it_numinst = 0;	/* names may be stale */
		return;
	}
	ids = face->flame_instances[p];
	for (i = 0; i < n; i++) {
		ids[i].i_inst = v[i].inst;
		ids[i].i_name = (char *)v[i].name;
	}
	face->indoms[INDOM_FLAME + p].it_set = ids;
	face->indoms[INDOM_FLAME + p].it_numinst = (int)n;
}

/* The profile whose flame metric pmid is, or -1. */
static int
flame_profile(pmID pmid)
{
	const struct profile_def	*def = profile_by_cluster(pmID_cluster(pmid));

	return def && pmID_item(pmid) == PROF_FLAME ? (int)(def - profile_defs) : -1;
}

static int
stackprof_fetch(int numpmid, pmID pmidlist[], pmResult **resp, pmdaExt *pmda)
{
	struct pcp_face	*face = pmdaExtGetData(pmda);
	int		i, p;

	face->snap.have_heatmap = false;
	metrics_stats_forget(face);
	refresh_slots(face);
	for (i = 0; i < numpmid; i++)
		if ((p = flame_profile(pmidlist[i])) >= 0)
			refresh_flame(face, p);
	return pmdaFetch(numpmid, pmidlist, resp, pmda);
}

static int
stackprof_instance(pmInDom indom, int inst, char *name, pmInResult **result, pmdaExt *pmda)
{
	struct pcp_face	*face = pmdaExtGetData(pmda);
	int		p;

	refresh_slots(face);
	for (p = 0; p < NPROFILES; p++)
		if (indom == face->indoms[INDOM_FLAME + p].it_indom)
			refresh_flame(face, p);
	return pmdaInstance(indom, inst, name, result, pmda);
}

static void
end_context(int ctx)
{
	int	i;

	for (i = 0; i < NPROFILES; i++) {
		events_client_end(agent_profile(ending_face->agent, i)->events, ctx);
		history_client_end(agent_profile(ending_face->agent, i)->history, ctx);
	}
	control_end_context(ending_face, ctx);
}

static pmUnits
units_of(enum control_units u)
{
	static const pmUnits	units[] = {
		[CONTROL_UNITS_NONE] = UNITS_NONE, [CONTROL_UNITS_HZ] = UNITS_HZ,
		[CONTROL_UNITS_MSEC] = UNITS_MSEC, [CONTROL_UNITS_USEC] = UNITS_USEC,
		[CONTROL_UNITS_COUNT] = UNITS_COUNT, [CONTROL_UNITS_SEC] = UNITS_SEC,
	};

	return units[u];
}

/* A profile's metrics in its row's cluster, its counts in its units. */
static void
add_profile_metrics(pmdaMetric *m, const struct profile_def *def)
{
	size_t	i;

	memcpy(m, profile_metrics, sizeof(profile_metrics));
	for (i = 0; i < NPROFILE_METRICS; i++) {
		unsigned	item = pmID_item(m[i].m_desc.pmid);

		m[i].m_desc.pmid = PMDA_PMID(def->cluster, item);
		if ((item == REC_COUNT || item == PROF_SAMPLES || item == PROF_FLAME) &&
		    def->count_unit == PROFILE_UNIT_USEC)
			m[i].m_desc.units = (pmUnits)UNITS_USEC;
		if (item == REC_VALUE && def->value_unit == PROFILE_UNIT_COUNT)
			m[i].m_desc.units = (pmUnits)UNITS_COUNT;
		if (item == PROF_FLAME)
			m[i].m_desc.indom = INDOM_FLAME + (unsigned)(def - profile_defs);
	}
}

/* The control table's rows, the profiles', the fixed ones, then the stats
 * tables'; each points at the face. */
static int
build_metrics(struct pcp_face *face)
{
	size_t	nfixed = sizeof(fixed_metrics) / sizeof(fixed_metrics[0]), i;
	size_t	nprof = NPROFILES * NPROFILE_METRICS;

	face->nmetrics = (int)(ncontrols + nprof + nfixed + metrics_stats_count());
	if ((face->metrics = calloc(face->nmetrics, sizeof(pmdaMetric))) == NULL)
		return -ENOMEM;
	for (i = 0; i < ncontrols; i++) {
		pmDesc	*d = &face->metrics[i].m_desc;

		d->pmid = PMDA_PMID(CL_CONTROL, controls[i].item);
		d->type = controls[i].type == CONTROL_STRING ? PM_TYPE_STRING : PM_TYPE_U32;
		d->indom = PM_INDOM_NULL;
		d->sem = PM_SEM_DISCRETE;
		d->units = units_of(controls[i].units);
	}
	for (i = 0; i < NPROFILES; i++)
		add_profile_metrics(face->metrics + ncontrols + i * NPROFILE_METRICS,
				    &profile_defs[i]);
	memcpy(face->metrics + ncontrols + nprof, fixed_metrics, sizeof(fixed_metrics));
	metrics_stats_describe(face->metrics + ncontrols + nprof + nfixed);
	for (i = 0; i < (size_t)face->nmetrics; i++)
		face->metrics[i].m_user = face;
	return 0;
}

int
metrics_init(pmdaInterface *dp, struct agent *a)
{
	struct pcp_face	*face = calloc(1, sizeof(*face));
	pmID		params[EP_NPARAMS];
	int		i, p, sts = 0;

	if (face == NULL || build_metrics(face) < 0 || metrics_stats_init(face) < 0) {
		if (face != NULL) {
			metrics_stats_free(face);
			free(face->metrics);
		}
		free(face);
		return -ENOMEM;
	}
	face->agent = a;
	for (i = 0; i < INDOM_FLAME + NPROFILES; i++)
		face->indoms[i].it_indom = (pmInDom)i;
	ending_face = face;

	dp->version.seven.fetch = stackprof_fetch;
	dp->version.seven.instance = stackprof_instance;
	dp->version.seven.store = control_store;
	dp->version.seven.attribute = control_attribute;
	pmdaSetFetchCallBack(dp, fetch_value);
	pmdaSetEndContextCallBack(dp, end_context);
	pmdaSetCommFlags(dp, PMDA_FLAG_AUTHORIZE);

	refresh_slots(face);
	refresh_processes(face);
	pmdaInit(dp, face->indoms, INDOM_FLAME + NPROFILES, face->metrics, face->nmetrics);
	pmdaSetData(dp, face);

	/* after pmdaInit the PMIDs carry our domain */
	for (p = 0; p < NPROFILES && sts == 0; p++) {
		for (i = 0; i < EP_NPARAMS; i++)
			params[i] = pmID_build(dp->domain, profile_defs[p].cluster, REC_STACK + i);
		sts = events_set_params(agent_profile(a, p)->events, params);
	}
	return sts;
}

void
metrics_after_drain(pmdaInterface *dp)
{
	refresh_processes(pmdaExtGetData(dp->version.any.ext));
}

void
metrics_free(pmdaInterface *dp)
{
	struct pcp_face	*face = pmdaExtGetData(dp->version.any.ext);
	int		i;

	if (face == NULL)
		return;
	if (ending_face == face)
		ending_face = NULL;
	control_free(face);
	metrics_stats_free(face);
	free(face->proc_instances);
	for (i = 0; i < NPROFILES; i++)
		free(face->flame_instances[i]);
	free(face->slot_instances);
	free(face->slot_names);
	free(face->metrics);
	free(face);
	pmdaSetData(dp, NULL);
}
