/*
 * metrics_unwind.c - the unwind table cache's figures (stackprof.stats):
 *
 *   unwind_builds, _build_errors     tables built; files whose CFI was refused
 *   unwind_build_time          µs    worker time spent building
 *   unwind_kernel_full               tables that found no room in the kernel
 *   unwind_evictions                 tables unloaded (idle, or to make room)
 *   unwind_tables, _tables_loaded    files known; of which in the kernel
 *   unwind_kernel_rows, _bytes       rows in the kernel and their bytes
 *   unwind_kernel_reserved     bytes the kernel's row array and directory
 *                                    hold whatever is loaded (preallocated)
 *   unwind_user_bytes          bytes the cache holds in the PMDA
 *   unwind_processes, _pending       processes described; builds queued
 *   unwind_mappings_dropped          mappings beyond what a process's array holds
 *   unwind_process_errors            mapping arrays the kernel refused
 */
#include "pcp_priv.h"

static uint64_t
cache_figure(const struct unwind_stats *st, unsigned item)
{
	switch (item) {
	case ST_UNWIND_BUILDS:		return st->builds;
	case ST_UNWIND_BUILD_ERRORS:	return st->build_errors;
	case ST_UNWIND_BUILD_TIME:	return st->build_ns / 1000;
	case ST_UNWIND_KERNEL_FULL:	return st->kernel_full;
	case ST_UNWIND_EVICTIONS:	return st->evictions;
	case ST_UNWIND_TABLES:		return st->tables;
	case ST_UNWIND_TABLES_LOADED:	return st->tables_loaded;
	case ST_UNWIND_KERNEL_ROWS:	return st->kernel_rows;
	case ST_UNWIND_KERNEL_BYTES:	return st->kernel_bytes;
	case ST_UNWIND_USER_BYTES:	return st->user_bytes;
	case ST_UNWIND_PROCESSES:	return st->processes;
	case ST_UNWIND_PENDING:		return st->pending;
	case ST_UNWIND_MAPPINGS_DROPPED: return st->mappings_dropped;
	default:			return st->process_errors;
	}
}

int
metrics_unwind_stat(const struct agent *a, unsigned item, pmAtomValue *atom)
{
	struct unwind_stats		st;
	struct sampler_unwind_usage	u;

	if (a->sampler == NULL)
		return PMDA_FETCH_NOVALUES;
	if (item == ST_UNWIND_KERNEL_RESERVED) {
		sampler_unwind_usage(a->sampler, &u);
		atom->ull = u.table_bytes;
		return PMDA_FETCH_STATIC;
	}
	if (a->unwinder == NULL)
		return PMDA_FETCH_NOVALUES;
	unwinder_stats(a->unwinder, &st);
	atom->ull = cache_figure(&st, item);
	return PMDA_FETCH_STATIC;
}
