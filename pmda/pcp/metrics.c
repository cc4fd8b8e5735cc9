/*
 * metrics.c - what pmdastackprof serves, and how a fetch finds it.
 *
 *   stackprof.control.enabled        u32   1 sampling, 0 BPF detached
 *   stackprof.control.frequency      u32   Hz per CPU (1..1000, default 99)
 *   stackprof.control.process        str   regex over comm/cmdline ("" = none)
 *   stackprof.control.pids           str   comma list of PIDs ("" = none)
 *   stackprof.control.interval       u32   drain interval ms (100..60000)
 *   stackprof.control.heatmap_slots  u32   slices of a second (divides 1000)
 *   stackprof.oncpu.stacks           event one record per process/thread/stack
 *   stackprof.oncpu.record.*               its parameters
 *   stackprof.oncpu.folded           str   per process: last interval, folded
 *   stackprof.oncpu.samples          u64   per process: cumulative samples
 *   stackprof.heatmap.oncpu          u64   per slot: cumulative samples
 *   stackprof.stats.*                      sampler, symbolizer, drain, queue
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent.h"
#include "agent/events.h"
#include "metrics.h"

#define UNITS_NONE	PMDA_PMUNITS(0, 0, 0, 0, 0, 0)
#define UNITS_COUNT	PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE)
#define UNITS_HZ	PMDA_PMUNITS(0, -1, 1, 0, PM_TIME_SEC, PM_COUNT_ONE)
#define UNITS_MSEC	PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_MSEC, 0)
#define UNITS_USEC	PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_USEC, 0)
#define UNITS_NSEC	PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_NSEC, 0)
#define UNITS_BYTES	PMDA_PMUNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0)

#define METRIC(cl, it, type, indom, sem, units) \
	{ NULL, { PMDA_PMID(cl, it), type, indom, sem, units } }
#define STAT(it)	METRIC(CL_STATS, it, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_COUNT)

static pmdaInstid	*slot_instances;
static pmdaInstid	*proc_instances;

static pmdaIndom indomtab[] = {
	[INDOM_PROCESS] = { INDOM_PROCESS, 0, NULL },
	[INDOM_HEATMAP_SLOT] = { INDOM_HEATMAP_SLOT, 0, NULL },
};

static pmdaMetric metrictab[] = {
	METRIC(CL_CONTROL, CTL_ENABLED, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(CL_CONTROL, CTL_FREQUENCY, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_HZ),
	METRIC(CL_CONTROL, CTL_PROCESS, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(CL_CONTROL, CTL_PIDS, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(CL_CONTROL, CTL_INTERVAL, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_MSEC),
	METRIC(CL_CONTROL, CTL_HEATMAP_SLOTS, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),

	METRIC(CL_ONCPU, ONCPU_STACKS, PM_TYPE_EVENT, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_NONE),
	METRIC(CL_ONCPU, ONCPU_FOLDED, PM_TYPE_STRING, INDOM_PROCESS, PM_SEM_INSTANT, UNITS_NONE),
	METRIC(CL_ONCPU, ONCPU_SAMPLES, PM_TYPE_U64, INDOM_PROCESS, PM_SEM_COUNTER, UNITS_COUNT),
	METRIC(CL_ONCPU, REC_STACK, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(CL_ONCPU, REC_COUNT, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_COUNT),
	METRIC(CL_ONCPU, REC_PID, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(CL_ONCPU, REC_TID, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(CL_ONCPU, REC_COMM, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(CL_ONCPU, REC_PROCESS, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(CL_ONCPU, REC_TYPE, PM_TYPE_STRING, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	METRIC(CL_ONCPU, REC_VALUE, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_USEC),

	METRIC(CL_HEATMAP, HEAT_ONCPU, PM_TYPE_U64, INDOM_HEATMAP_SLOT, PM_SEM_COUNTER, UNITS_COUNT),

	STAT(ST_SAMPLES), STAT(ST_FILTERED), STAT(ST_IDLE), STAT(ST_MAP_FULL),
	STAT(ST_KSTACK_COLLISIONS), STAT(ST_USTACK_COLLISIONS),
	STAT(ST_KSTACK_MISSING), STAT(ST_USTACK_MISSING),
	METRIC(CL_STATS, ST_BPF_RUN_TIME, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_NSEC),
	STAT(ST_BPF_RUN_COUNT), STAT(ST_DRAINS),
	METRIC(CL_STATS, ST_DRAIN_TIME, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_USEC),
	METRIC(CL_STATS, ST_SYMBOLIZE_TIME, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_USEC),
	STAT(ST_LOST_PROCESSES), STAT(ST_SYMBOL_MISSES), STAT(ST_CACHE_HITS),
	STAT(ST_CACHE_MISSES), STAT(ST_CACHE_EVICTIONS),
	METRIC(CL_STATS, ST_CACHE_BYTES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_BYTES),
	STAT(ST_SYMBOL_LOOKUPS), STAT(ST_STACKS),
	METRIC(CL_STATS, ST_EVENT_RECORDS, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_COUNT),
	METRIC(CL_STATS, ST_EVENT_BYTES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_BYTES),
	METRIC(CL_STATS, ST_EVENT_QUEUED_BYTES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_BYTES),
	METRIC(CL_STATS, ST_EVENT_CLIENTS, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_COUNT),
	STAT(ST_BAD_STORES), STAT(ST_DENIED_STORES),
	METRIC(CL_STATS, ST_PROCESSES, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_COUNT),
	METRIC(CL_STATS, ST_BPF_LOADED, PM_TYPE_U32, PM_INDOM_NULL, PM_SEM_DISCRETE, UNITS_NONE),
	STAT(ST_DRAIN_ERRORS),
	STAT(ST_EXECS), STAT(ST_EXEC_LOST),
	STAT(ST_ELF_ERRORS), STAT(ST_DEBUG_MISMATCHES), STAT(ST_PERFMAP_BAD_LINES),
	STAT(ST_PROC_ERRORS),
	METRIC(CL_STATS, ST_SYMBOL_PROCESSES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_COUNT),
	STAT(ST_FILTER_SCANS),
	METRIC(CL_STATS, ST_DRAIN_TIME_MAX, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_USEC),
	STAT(ST_EVENT_DROPPED),
};

/* Where each sampler-backed stats item comes from: an enum sp_stat index. */
static const int sampler_stat_of[ST_NITEMS] = {
	[ST_SAMPLES] = SP_STAT_SAMPLES + 1, [ST_FILTERED] = SP_STAT_FILTERED + 1,
	[ST_IDLE] = SP_STAT_IDLE + 1, [ST_MAP_FULL] = SP_STAT_MAP_FULL + 1,
	[ST_KSTACK_COLLISIONS] = SP_STAT_KSTACK_COLLISION + 1,
	[ST_USTACK_COLLISIONS] = SP_STAT_USTACK_COLLISION + 1,
	[ST_KSTACK_MISSING] = SP_STAT_KSTACK_MISSING + 1,
	[ST_USTACK_MISSING] = SP_STAT_USTACK_MISSING + 1,
	[ST_EXECS] = SP_STAT_EXECS + 1, [ST_EXEC_LOST] = SP_STAT_EXEC_LOST + 1,
	/* 0 = not a sp_stat; +1 keeps index 0 usable */
};

/* Values read from BPF maps once per fetch PDU, not once per metric. */
static struct {
	bool			have_sampler, have_heatmap;
	struct sampler_stats	sampler;
	uint64_t		heatmap[SP_HEATMAP_MAX_SLOTS];
} snap;

static int
fetch_control(unsigned item, pmAtomValue *atom)
{
	switch (item) {
	case CTL_ENABLED:	atom->ul = agent.enabled; break;
	case CTL_FREQUENCY:	atom->ul = agent.frequency_hz; break;
	case CTL_PROCESS:	atom->cp = agent.process_regex; break;
	case CTL_PIDS:		atom->cp = agent.pids_text; break;
	case CTL_INTERVAL:	atom->ul = agent.interval_ms; break;
	case CTL_HEATMAP_SLOTS:	atom->ul = agent.heatmap_slots; break;
	default:		return PM_ERR_PMID;
	}
	return PMDA_FETCH_STATIC;
}

static int
fetch_oncpu(unsigned item, unsigned inst, pmAtomValue *atom)
{
	struct window_proc	*p;

	if (item == ONCPU_STACKS)
		return events_fetch(pmdaGetContext(), atom);
	if (item >= REC_STACK)
		return PMDA_FETCH_NOVALUES;	/* only inside records */
	if ((p = window_lookup(agent.window, (pid_t)inst)) == NULL)
		return PM_ERR_INST;
	if (item == ONCPU_FOLDED)
		atom->cp = p->folded;
	else if (item == ONCPU_SAMPLES)
		atom->ull = p->samples;
	else
		return PM_ERR_PMID;
	return PMDA_FETCH_STATIC;
}

static int
fetch_heatmap(unsigned inst, pmAtomValue *atom)
{
	unsigned	width = 1000 / agent.heatmap_slots;

	if (agent.sampler == NULL)
		return PMDA_FETCH_NOVALUES;
	if (!snap.have_heatmap) {
		if (sampler_read_heatmap(agent.sampler, snap.heatmap, agent.heatmap_slots) < 0)
			return PMDA_FETCH_NOVALUES;
		snap.have_heatmap = true;
	}
	/* instance id is the slot's offset in ms */
	if (inst % width != 0 || inst / width >= agent.heatmap_slots)
		return PM_ERR_INST;
	atom->ull = snap.heatmap[inst / width];
	return PMDA_FETCH_STATIC;
}

static int
fetch_sampler_stat(unsigned item, pmAtomValue *atom)
{
	if (agent.sampler == NULL)
		return PMDA_FETCH_NOVALUES;
	if (!snap.have_sampler) {
		if (sampler_read_stats(agent.sampler, &snap.sampler) < 0)
			return PMDA_FETCH_NOVALUES;
		snap.have_sampler = true;
	}
	if (sampler_stat_of[item])
		atom->ull = snap.sampler.stat[sampler_stat_of[item] - 1];
	else if (item == ST_BPF_RUN_TIME)
		atom->ull = snap.sampler.bpf_run_time_ns;
	else
		atom->ull = snap.sampler.bpf_run_count;
	return PMDA_FETCH_STATIC;
}

static int
fetch_symbolizer_stat(unsigned item, pmAtomValue *atom)
{
	struct symbolizer_stats	st;

	if (agent.symbolizer == NULL)
		return PMDA_FETCH_NOVALUES;	/* not started yet */
	symbolizer_get_stats(agent.symbolizer, &st);
	switch (item) {
	case ST_LOST_PROCESSES:	atom->ull = st.lost_processes; break;
	case ST_SYMBOL_MISSES:	atom->ull = st.misses; break;
	case ST_CACHE_HITS:	atom->ull = st.cache_hits; break;
	case ST_CACHE_MISSES:	atom->ull = st.cache_misses; break;
	case ST_CACHE_EVICTIONS: atom->ull = st.cache_evictions; break;
	case ST_CACHE_BYTES:	atom->ull = st.cache_bytes; break;
	case ST_ELF_ERRORS:	atom->ull = st.elf_errors; break;
	case ST_DEBUG_MISMATCHES: atom->ull = st.debug_mismatches; break;
	case ST_PERFMAP_BAD_LINES: atom->ull = st.perfmap_bad_lines; break;
	case ST_PROC_ERRORS:	atom->ull = st.proc_errors; break;
	case ST_SYMBOL_PROCESSES: atom->ull = st.processes; break;
	case ST_SYMBOL_LOOKUPS:	atom->ull = st.kernel_lookups + st.user_lookups; break;
	default:		return PM_ERR_PMID;
	}
	return PMDA_FETCH_STATIC;
}

static int
fetch_stats(unsigned item, pmAtomValue *atom)
{
	struct window_proc *const	*procs;

	if (item >= ST_NITEMS)
		return PM_ERR_PMID;
	if (sampler_stat_of[item] || item == ST_BPF_RUN_TIME || item == ST_BPF_RUN_COUNT)
		return fetch_sampler_stat(item, atom);
	if ((item >= ST_LOST_PROCESSES && item <= ST_SYMBOL_LOOKUPS) ||
	    (item >= ST_ELF_ERRORS && item <= ST_SYMBOL_PROCESSES))
		return fetch_symbolizer_stat(item, atom);
	switch (item) {
	case ST_DRAINS:		atom->ull = agent.stats.drains; break;
	case ST_DRAIN_TIME:	atom->ull = agent.stats.drain_time_us; break;
	case ST_SYMBOLIZE_TIME:	atom->ull = agent.stats.symbolize_time_us; break;
	case ST_STACKS:		atom->ull = agent.stats.stacks; break;
	case ST_EVENT_RECORDS:	return events_stat_records(atom);
	case ST_EVENT_BYTES:	return events_stat_bytes(atom);
	case ST_EVENT_QUEUED_BYTES: return events_stat_memory(atom);
	case ST_EVENT_CLIENTS:	return events_stat_clients(atom);
	case ST_EVENT_DROPPED:	return events_stat_dropped(atom);
	case ST_BAD_STORES:	atom->ull = agent.stats.bad_stores; break;
	case ST_DENIED_STORES:	atom->ull = agent.stats.denied_stores; break;
	case ST_PROCESSES:	atom->ul = (uint32_t)window_procs(agent.window, &procs); break;
	case ST_BPF_LOADED:	atom->ul = agent.sampler != NULL; break;
	case ST_DRAIN_ERRORS:	atom->ull = agent.stats.drain_errors; break;
	case ST_FILTER_SCANS:	atom->ull = agent.stats.filter_scans; break;
	case ST_DRAIN_TIME_MAX:	atom->ull = agent.stats.drain_time_max_us; break;
	default:		return PM_ERR_PMID;
	}
	return PMDA_FETCH_STATIC;
}

static int
fetch_value(pmdaMetric *mdesc, unsigned int inst, pmAtomValue *atom)
{
	unsigned	cluster = pmID_cluster(mdesc->m_desc.pmid);
	unsigned	item = pmID_item(mdesc->m_desc.pmid);

	switch (cluster) {
	case CL_CONTROL:	return fetch_control(item, atom);
	case CL_ONCPU:		return fetch_oncpu(item, inst, atom);
	case CL_HEATMAP:	return fetch_heatmap(inst, atom);
	case CL_STATS:		return fetch_stats(item, atom);
	}
	return PM_ERR_PMID;
}

static int
stackprof_fetch(int numpmid, pmID pmidlist[], pmResult **resp, pmdaExt *pmda)
{
	snap.have_sampler = snap.have_heatmap = false;
	return pmdaFetch(numpmid, pmidlist, resp, pmda);
}

static void
end_context(int ctx)
{
	events_client_end(ctx);
	control_end_context(ctx);
}

void
metrics_refresh_processes(void)
{
	struct window_proc *const	*procs;
	size_t				i, n = window_procs(agent.window, &procs);
	pmdaInstid			*v = realloc(proc_instances, (n ? n : 1) * sizeof(*v));

	if (v == NULL) {
		pmNoMem("process instances", n * sizeof(*v), PM_RECOV_ERR);
		indomtab[INDOM_PROCESS].it_numinst = 0;	/* names may be stale */
		return;
	}
	for (i = 0; i < n; i++) {
		v[i].i_inst = (int)procs[i]->pid;
		v[i].i_name = procs[i]->instname;
	}
	proc_instances = v;
	indomtab[INDOM_PROCESS].it_set = v;
	indomtab[INDOM_PROCESS].it_numinst = (int)n;
}

int
metrics_refresh_slots(unsigned slots)
{
	static char	(*names)[8];
	unsigned	i, width = 1000 / slots;
	pmdaInstid	*v = calloc(slots, sizeof(*v));
	char		(*nv)[8] = calloc(slots, sizeof(*nv));

	if (v == NULL || nv == NULL) {
		free(v);
		free(nv);
		return -ENOMEM;
	}
	for (i = 0; i < slots; i++) {
		/* offset of the slot in the second: sorts and reads as a time */
		snprintf(nv[i], sizeof(nv[i]), "%03ums", i * width);
		v[i].i_inst = (int)(i * width);
		v[i].i_name = nv[i];
	}
	free(slot_instances);
	free(names);
	slot_instances = v;
	names = nv;
	indomtab[INDOM_HEATMAP_SLOT].it_set = v;
	indomtab[INDOM_HEATMAP_SLOT].it_numinst = (int)slots;
	return 0;
}

void
metrics_init(pmdaInterface *dp)
{
	pmID	params[EP_NPARAMS];
	int	i;

	dp->version.seven.fetch = stackprof_fetch;
	dp->version.seven.store = control_store;
	dp->version.seven.attribute = control_attribute;
	pmdaSetFetchCallBack(dp, fetch_value);
	pmdaSetEndContextCallBack(dp, end_context);
	pmdaSetCommFlags(dp, PMDA_FLAG_AUTHORIZE);

	metrics_refresh_slots(agent.heatmap_slots);
	metrics_refresh_processes();
	pmdaInit(dp, indomtab, sizeof(indomtab) / sizeof(indomtab[0]),
		 metrictab, sizeof(metrictab) / sizeof(metrictab[0]));

	/* after pmdaInit the PMIDs carry our domain */
	for (i = 0; i < EP_NPARAMS; i++)
		params[i] = pmID_build(dp->domain, CL_ONCPU, REC_STACK + i);
	events_init(params, 8u << 20);
}
