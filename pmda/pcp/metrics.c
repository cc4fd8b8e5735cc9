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
 *   stackprof.stats.*                      sampler, symbolizer, drain, queue,
 *                                          unwind tables (metrics_unwind.c)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/controls.h"
#include "control.h"
#include "metrics.h"
#include "pcp_priv.h"

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

/* Every metric but the controls' and the profiles'. */
static const pmdaMetric fixed_metrics[] = {
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
	STAT(ST_UNWIND_TABLE_FRAMES), STAT(ST_UNWIND_FP_FRAMES), STAT(ST_UNWIND_COMPLETE),
	STAT(ST_UNWIND_TRUNC_DEPTH), STAT(ST_UNWIND_TRUNC_READ), STAT(ST_UNWIND_TRUNC_NORULE),
	STAT(ST_UNWIND_NO_MAPPING), STAT(ST_UNWIND_NO_TABLE), STAT(ST_UNWIND_NO_PROCESS),
	STAT(ST_UNWIND_REFRESHES), STAT(ST_USTACK_MAP_FULL),
	STAT(ST_UNWIND_BUILDS), STAT(ST_UNWIND_BUILD_ERRORS),
	METRIC(CL_STATS, ST_UNWIND_BUILD_TIME, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_USEC),
	STAT(ST_UNWIND_KERNEL_FULL), STAT(ST_UNWIND_EVICTIONS),
	METRIC(CL_STATS, ST_UNWIND_TABLES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_COUNT),
	METRIC(CL_STATS, ST_UNWIND_TABLES_LOADED, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_COUNT),
	METRIC(CL_STATS, ST_UNWIND_KERNEL_ROWS, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_COUNT),
	METRIC(CL_STATS, ST_UNWIND_KERNEL_BYTES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_BYTES),
	METRIC(CL_STATS, ST_UNWIND_KERNEL_RESERVED, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_BYTES),
	METRIC(CL_STATS, ST_UNWIND_USER_BYTES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_BYTES),
	METRIC(CL_STATS, ST_UNWIND_PROCESSES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_COUNT),
	METRIC(CL_STATS, ST_UNWIND_PENDING, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_COUNT),
	STAT(ST_UNWIND_MAPPINGS_DROPPED), STAT(ST_UNWIND_PROCESS_ERRORS),
	STAT(ST_UNWIND_TOO_LARGE), STAT(ST_UNWIND_REBUILDS_DEFERRED), STAT(ST_UNWIND_BUILDS_DROPPED),
	STAT(ST_REGEX_LIMITED), STAT(ST_ELF_REFUSED), STAT(ST_PERFMAP_REFUSED),
	STAT(ST_MAPS_TRUNCATED), STAT(ST_BUDGET_REFUSED),
	METRIC(CL_STATS, ST_HISTORY_THREADS, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_COUNT),
	METRIC(CL_STATS, ST_HISTORY_STACKS, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_COUNT),
	STAT(ST_HISTORY_DROPPED), STAT(ST_HISTORY_LOST),
	METRIC(CL_STATS, ST_HISTORY_QUEUED_BYTES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_BYTES),
	METRIC(CL_STATS, ST_HISTORY_BYTES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_BYTES),
	STAT(ST_DEBUGINFOD_REQUESTS), STAT(ST_DEBUGINFOD_HITS), STAT(ST_DEBUGINFOD_MISSES),
	STAT(ST_DEBUGINFOD_FAILURES), STAT(ST_DEBUGINFOD_REJECTED),
	METRIC(CL_STATS, ST_DEBUGINFOD_BYTES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_BYTES),
	METRIC(CL_STATS, ST_DEBUGINFOD_CACHE_BYTES, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_BYTES),
	METRIC(CL_STATS, ST_DEBUGINFOD_SLOWEST, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_INSTANT, UNITS_USEC),
	STAT(ST_DEBUGINFOD_NAMED_FILES),
	STAT(ST_OFFCPU_SWITCHES), STAT(ST_OFFCPU_INTERVALS),
	METRIC(CL_STATS, ST_OFFCPU_USEC, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_USEC),
	STAT(ST_OFFCPU_SHORT),
	METRIC(CL_STATS, ST_OFFCPU_SHORT_USEC, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_USEC),
	STAT(ST_OFFCPU_MAP_FULL), STAT(ST_OFFCPU_FILTERED),
	METRIC(CL_STATS, ST_OFFCPU_BPF_RUN_TIME, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER, UNITS_NSEC),
	STAT(ST_OFFCPU_BPF_RUN_COUNT),
	STAT(ST_PAGEFAULT_SAMPLES), STAT(ST_PAGEFAULT_FILTERED), STAT(ST_PAGEFAULT_MAP_FULL),
	METRIC(CL_STATS, ST_PAGEFAULT_BPF_RUN_TIME, PM_TYPE_U64, PM_INDOM_NULL, PM_SEM_COUNTER,
	       UNITS_NSEC),
	STAT(ST_PAGEFAULT_BPF_RUN_COUNT),
	STAT(ST_USTACKS_CUT),
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
	[ST_UNWIND_TABLE_FRAMES] = SP_STAT_UNWIND_TABLE_FRAMES + 1,
	[ST_UNWIND_FP_FRAMES] = SP_STAT_UNWIND_FP_FRAMES + 1,
	[ST_UNWIND_COMPLETE] = SP_STAT_UNWIND_COMPLETE + 1,
	[ST_UNWIND_TRUNC_DEPTH] = SP_STAT_UNWIND_TRUNC_DEPTH + 1,
	[ST_UNWIND_TRUNC_READ] = SP_STAT_UNWIND_TRUNC_READ + 1,
	[ST_UNWIND_TRUNC_NORULE] = SP_STAT_UNWIND_TRUNC_NORULE + 1,
	[ST_UNWIND_NO_MAPPING] = SP_STAT_UNWIND_NO_MAPPING + 1,
	[ST_UNWIND_NO_TABLE] = SP_STAT_UNWIND_NO_TABLE + 1,
	[ST_UNWIND_NO_PROCESS] = SP_STAT_UNWIND_NO_PROCESS + 1,
	[ST_UNWIND_REFRESHES] = SP_STAT_UNWIND_REFRESH + 1,
	[ST_USTACK_MAP_FULL] = SP_STAT_USTACK_MAP_FULL + 1,
	[ST_OFFCPU_SWITCHES] = SP_STAT_SWITCHES + 1,
	[ST_OFFCPU_INTERVALS] = SP_STAT_OFFCPU_INTERVALS + 1,
	[ST_OFFCPU_USEC] = SP_STAT_OFFCPU_USEC + 1, [ST_OFFCPU_SHORT] = SP_STAT_OFFCPU_SHORT + 1,
	[ST_OFFCPU_SHORT_USEC] = SP_STAT_OFFCPU_SHORT_USEC + 1,
	[ST_OFFCPU_MAP_FULL] = SP_STAT_OFFCPU_MAP_FULL + 1,
	[ST_OFFCPU_FILTERED] = SP_STAT_OFFCPU_FILTERED + 1,
	[ST_PAGEFAULT_SAMPLES] = SP_STAT_PAGEFAULT_SAMPLES + 1,
	[ST_PAGEFAULT_FILTERED] = SP_STAT_PAGEFAULT_FILTERED + 1,
	[ST_PAGEFAULT_MAP_FULL] = SP_STAT_PAGEFAULT_MAP_FULL + 1,
	/* 0 = not a sp_stat; +1 keeps index 0 usable */
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
	if ((p = window_lookup(prof->window, (pid_t)inst)) == NULL)
		return PM_ERR_INST;
	if (item == PROF_FOLDED)
		atom->cp = p->folded;
	else if (item == PROF_SAMPLES)
		atom->ull = p->samples;
	else
		return PM_ERR_PMID;
	return PMDA_FETCH_STATIC;
}

/* stackprof.stats.history_*: the on-CPU profile's history. */
static int
fetch_history_stat(const struct history *h, unsigned item, pmAtomValue *atom)
{
	struct history_stats	st;

	history_get_stats(h, &st);
	switch (item) {
	case ST_HISTORY_THREADS:	atom->ull = st.threads; break;
	case ST_HISTORY_STACKS:		atom->ull = st.stacks; break;
	case ST_HISTORY_DROPPED:	atom->ull = st.dropped; break;
	case ST_HISTORY_LOST:		atom->ull = st.lost; break;
	case ST_HISTORY_QUEUED_BYTES:	atom->ull = st.queued_bytes; break;
	case ST_HISTORY_BYTES:		atom->ull = st.text_bytes; break;
	default:			return PM_ERR_PMID;
	}
	return PMDA_FETCH_STATIC;
}

static int
fetch_heatmap(struct pcp_face *face, unsigned inst, pmAtomValue *atom)
{
	const struct agent	*a = face->agent;
	unsigned		slots = a->config.heatmap_slots, width = 1000 / slots;

	if (a->sampler == NULL)
		return PMDA_FETCH_NOVALUES;
	if (!face->snap.have_heatmap) {
		if (sampler_read_heatmap(a->sampler, face->snap.heatmap, slots) < 0)
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
fetch_sampler_stat(struct pcp_face *face, unsigned item, pmAtomValue *atom)
{
	struct sampler_stats	*st = &face->snap.sampler;

	if (face->agent->sampler == NULL)
		return PMDA_FETCH_NOVALUES;
	if (!face->snap.have_sampler) {
		if (sampler_read_stats(face->agent->sampler, st) < 0)
			return PMDA_FETCH_NOVALUES;
		face->snap.have_sampler = true;
	}
	switch (item) {
	case ST_BPF_RUN_TIME:		atom->ull = st->bpf_run_time_ns; break;
	case ST_BPF_RUN_COUNT:		atom->ull = st->bpf_run_count; break;
	case ST_OFFCPU_BPF_RUN_TIME:	atom->ull = st->offcpu_run_time_ns; break;
	case ST_OFFCPU_BPF_RUN_COUNT:	atom->ull = st->offcpu_run_count; break;
	case ST_PAGEFAULT_BPF_RUN_TIME:	atom->ull = st->pagefault_run_time_ns; break;
	case ST_PAGEFAULT_BPF_RUN_COUNT: atom->ull = st->pagefault_run_count; break;
	default:			atom->ull = st->stat[sampler_stat_of[item] - 1]; break;
	}
	return PMDA_FETCH_STATIC;
}

static int
fetch_debuginfod_stat(const struct symbolizer_debuginfod_stats *st, unsigned item,
		      pmAtomValue *atom)
{
	switch (item) {
	case ST_DEBUGINFOD_REQUESTS:	atom->ull = st->requests; break;
	case ST_DEBUGINFOD_HITS:	atom->ull = st->hits; break;
	case ST_DEBUGINFOD_MISSES:	atom->ull = st->misses; break;
	case ST_DEBUGINFOD_FAILURES:	atom->ull = st->failures; break;
	case ST_DEBUGINFOD_REJECTED:	atom->ull = st->rejected; break;
	case ST_DEBUGINFOD_BYTES:	atom->ull = st->bytes; break;
	case ST_DEBUGINFOD_CACHE_BYTES:	atom->ull = st->cache_bytes; break;
	case ST_DEBUGINFOD_SLOWEST:	atom->ull = st->slowest_us; break;
	case ST_DEBUGINFOD_NAMED_FILES:	atom->ull = st->named_files; break;
	default:			return PM_ERR_PMID;
	}
	return PMDA_FETCH_STATIC;
}

static int
fetch_symbolizer_stat(const struct agent *a, unsigned item, pmAtomValue *atom)
{
	struct symbolizer_stats	st;

	if (a->symbolizer == NULL)
		return PMDA_FETCH_NOVALUES;	/* not started yet */
	symbolizer_get_stats(a->symbolizer, &st);
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
	case ST_ELF_REFUSED:	atom->ull = st.elf_refused; break;
	case ST_PERFMAP_REFUSED: atom->ull = st.perfmap_refused; break;
	case ST_MAPS_TRUNCATED:	atom->ull = st.maps_truncated; break;
	case ST_BUDGET_REFUSED:	atom->ull = st.budget_refused; break;
	default:		return fetch_debuginfod_stat(&st.debuginfod, item, atom);
	}
	return PMDA_FETCH_STATIC;
}

/* Figures of the event queue of stackprof.oncpu.stacks. */
static int
fetch_event_stat(const struct event_queue *q, unsigned item, pmAtomValue *atom)
{
	switch (item) {
	case ST_EVENT_RECORDS:	return events_stat_records(q, atom);
	case ST_EVENT_BYTES:	return events_stat_bytes(q, atom);
	case ST_EVENT_QUEUED_BYTES: return events_stat_memory(q, atom);
	case ST_EVENT_CLIENTS:	return events_stat_clients(q, atom);
	case ST_EVENT_DROPPED:	return events_stat_dropped(q, atom);
	}
	return PM_ERR_PMID;
}

static int
fetch_stats(struct pcp_face *face, unsigned item, pmAtomValue *atom)
{
	const struct agent		*a = face->agent;
	struct window_proc *const	*procs;

	if (item >= ST_NITEMS)
		return PM_ERR_PMID;
	if (sampler_stat_of[item] || item == ST_BPF_RUN_TIME || item == ST_BPF_RUN_COUNT ||
	    item == ST_OFFCPU_BPF_RUN_TIME || item == ST_OFFCPU_BPF_RUN_COUNT ||
	    item == ST_PAGEFAULT_BPF_RUN_TIME || item == ST_PAGEFAULT_BPF_RUN_COUNT)
		return fetch_sampler_stat(face, item, atom);
	if ((item >= ST_LOST_PROCESSES && item <= ST_SYMBOL_LOOKUPS) ||
	    (item >= ST_ELF_ERRORS && item <= ST_SYMBOL_PROCESSES) ||
	    (item >= ST_ELF_REFUSED && item <= ST_BUDGET_REFUSED) ||
	    (item >= ST_DEBUGINFOD_REQUESTS && item <= ST_DEBUGINFOD_NAMED_FILES))
		return fetch_symbolizer_stat(a, item, atom);
	if ((item >= ST_EVENT_RECORDS && item <= ST_EVENT_CLIENTS) || item == ST_EVENT_DROPPED)
		return fetch_event_stat(a->profiles[PROFILE_ONCPU].events, item, atom);
	if (item >= ST_HISTORY_THREADS && item <= ST_HISTORY_BYTES)
		return fetch_history_stat(a->profiles[PROFILE_ONCPU].history, item, atom);
	if (item >= ST_UNWIND_BUILDS && item <= ST_UNWIND_BUILDS_DROPPED)
		return metrics_unwind_stat(a, item, atom);
	switch (item) {
	case ST_DRAINS:		atom->ull = a->stats.drains; break;
	case ST_DRAIN_TIME:	atom->ull = a->stats.drain_time_us; break;
	case ST_SYMBOLIZE_TIME:	atom->ull = a->stats.symbolize_time_us; break;
	case ST_STACKS:		atom->ull = a->stats.stacks; break;
	case ST_BAD_STORES:	atom->ull = face->bad_stores; break;
	case ST_DENIED_STORES:	atom->ull = face->denied_stores; break;
	case ST_PROCESSES:	atom->ul = (uint32_t)window_procs(a->profiles[PROFILE_ONCPU].window,
								      &procs); break;
	case ST_BPF_LOADED:	atom->ul = a->sampler != NULL; break;
	case ST_DRAIN_ERRORS:	atom->ull = a->stats.drain_errors; break;
	case ST_FILTER_SCANS:	atom->ull = a->stats.filter_scans; break;
	case ST_DRAIN_TIME_MAX:	atom->ull = a->stats.drain_time_max_us; break;
	case ST_REGEX_LIMITED:	atom->ull = proc_filter_regex_limited(a->filter); break;
	case ST_USTACKS_CUT:	atom->ull = a->stats.ustacks_cut; break;
	default:		return PM_ERR_PMID;
	}
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
	case CL_STATS:		return fetch_stats(face, item, atom);
	}
	if ((def = profile_by_cluster(cluster)) == NULL)
		return PM_ERR_PMID;
	return fetch_profile(&face->agent->profiles[def - profile_defs], item, inst, atom);
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
		n += window_procs(face->agent->profiles[p].window, &procs);
	if ((v = realloc(face->proc_instances, (n ? n : 1) * sizeof(*v))) == NULL) {
		pmNoMem("process instances", n * sizeof(*v), PM_RECOV_ERR);
		face->indoms[INDOM_PROCESS].it_numinst = 0;	/* names may be stale */
		return;
	}
	for (n = 0, p = 0; p < NPROFILES; p++)
		for (i = 0, m = window_procs(face->agent->profiles[p].window, &procs); i < m; i++) {
			v[n].i_inst = (int)procs[i]->pid;
			v[n++].i_name = procs[i]->instname;
		}
	qsort(v, n, sizeof(*v), by_inst);
	for (i = k = 0; i < n; i++)
		if (k == 0 || v[k - 1].i_inst != v[i].i_inst)
			v[k++] = v[i];
	face->proc_instances = v;
	face->indoms[INDOM_PROCESS].it_set = v;
	face->indoms[INDOM_PROCESS].it_numinst = (int)k;
}

/* The heat map's instances follow stackprof.control.heatmap_slots; they
 * are rebuilt when a fetch or an instance request finds it changed. */
static void
refresh_slots(struct pcp_face *face)
{
	unsigned	i, slots = face->agent->config.heatmap_slots, width;
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
	size_t				i, n = history_flame(face->agent->profiles[p].history, &v);
	pmdaInstid			*ids = realloc(face->flame_instances[p],
						       (n ? n : 1) * sizeof(*ids));

	if (ids == NULL) {
		face->indoms[INDOM_FLAME + p].it_numinst = 0;	/* names may be stale */
		return;
	}
	for (i = 0; i < n; i++) {
		ids[i].i_inst = v[i].inst;
		ids[i].i_name = (char *)v[i].name;
	}
	face->flame_instances[p] = ids;
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

	face->snap.have_sampler = face->snap.have_heatmap = false;
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
		events_client_end(ending_face->agent->profiles[i].events, ctx);
		history_client_end(ending_face->agent->profiles[i].history, ctx);
	}
	control_end_context(ending_face, ctx);
}

static pmUnits
units_of(enum control_units u)
{
	static const pmUnits	units[] = {
		[CONTROL_UNITS_NONE] = UNITS_NONE, [CONTROL_UNITS_HZ] = UNITS_HZ,
		[CONTROL_UNITS_MSEC] = UNITS_MSEC, [CONTROL_UNITS_USEC] = UNITS_USEC,
		[CONTROL_UNITS_COUNT] = UNITS_COUNT,
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

/* The control table's rows, the profiles', then the fixed ones; each
 * points at the face. */
static int
build_metrics(struct pcp_face *face)
{
	size_t	nfixed = sizeof(fixed_metrics) / sizeof(fixed_metrics[0]), i;
	size_t	nprof = NPROFILES * NPROFILE_METRICS;

	face->nmetrics = (int)(ncontrols + nprof + nfixed);
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

	if (face == NULL || build_metrics(face) < 0) {
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
		sts = events_set_params(a->profiles[p].events, params);
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
	free(face->proc_instances);
	for (i = 0; i < NPROFILES; i++)
		free(face->flame_instances[i]);
	free(face->slot_instances);
	free(face->slot_names);
	free(face->metrics);
	free(face);
	pmdaSetData(dp, NULL);
}
