/*
 * pmid.h - PMIDs and instance domains of pmdastackprof.
 *
 * Clusters: 0 control (storable: the items are the control table's, in
 * agent/control_table.c), 1 oncpu, 2 heatmap, 3 stats.  A profile's
 * cluster comes from its row in agent/profiles.c and holds the items of
 * enum profile_item.  The full list with types is in metrics.c and
 * docs/design.md ("PMDA").
 */
#ifndef PMID_H
#define PMID_H

enum metric_cluster { CL_CONTROL = 0, CL_ONCPU = 1, CL_HEATMAP = 2, CL_STATS = 3 };

/* The items of every profile's cluster (stackprof.NAME.*). */
enum profile_item {
	PROF_STACKS = 0, PROF_FOLDED = 1, PROF_SAMPLES = 2, PROF_HISTORY = 3,
	PROF_FLAME = 4,
	/* parameters of the stackprof.NAME.stacks records */
	REC_STACK = 10, REC_COUNT, REC_PID, REC_TID, REC_COMM, REC_PROCESS,
	REC_TYPE, REC_VALUE,
};

enum heatmap_item { HEAT_ONCPU = 0 };

/* Items are fixed forever (archives hold them); see sampler_stat_of in metrics.c. */
enum stats_item {
	ST_SAMPLES = 0, ST_FILTERED, ST_IDLE, ST_MAP_FULL, ST_KSTACK_COLLISIONS,
	ST_USTACK_COLLISIONS, ST_KSTACK_MISSING, ST_USTACK_MISSING,
	ST_BPF_RUN_TIME = 8, ST_BPF_RUN_COUNT, ST_DRAINS, ST_DRAIN_TIME,
	ST_SYMBOLIZE_TIME, ST_LOST_PROCESSES, ST_SYMBOL_MISSES,
	ST_CACHE_HITS, ST_CACHE_MISSES, ST_CACHE_EVICTIONS, ST_CACHE_BYTES,
	ST_SYMBOL_LOOKUPS, ST_STACKS, ST_EVENT_RECORDS, ST_EVENT_BYTES,
	ST_EVENT_QUEUED_BYTES, ST_EVENT_CLIENTS, ST_BAD_STORES,
	ST_DENIED_STORES, ST_PROCESSES, ST_BPF_LOADED, ST_DRAIN_ERRORS,
	ST_EXECS = 30, ST_EXEC_LOST, ST_ELF_ERRORS = 33,	/* 32: unused */
	ST_DEBUG_MISMATCHES, ST_PERFMAP_BAD_LINES, ST_PROC_ERRORS,
	ST_SYMBOL_PROCESSES, ST_FILTER_SCANS, ST_DRAIN_TIME_MAX, ST_EVENT_DROPPED,
	/* user stack unwinding: the walker's counters (BPF) ... */
	ST_UNWIND_TABLE_FRAMES = 41, ST_UNWIND_FP_FRAMES, ST_UNWIND_COMPLETE,
	ST_UNWIND_TRUNC_DEPTH, ST_UNWIND_TRUNC_READ, ST_UNWIND_TRUNC_NORULE,
	ST_UNWIND_NO_MAPPING, ST_UNWIND_NO_TABLE, ST_UNWIND_NO_PROCESS,
	ST_UNWIND_REFRESHES, ST_USTACK_MAP_FULL,
	/* ... and the table cache's (metrics_unwind.c) */
	ST_UNWIND_BUILDS = 52, ST_UNWIND_BUILD_ERRORS, ST_UNWIND_BUILD_TIME,
	ST_UNWIND_KERNEL_FULL, ST_UNWIND_EVICTIONS, ST_UNWIND_TABLES,
	ST_UNWIND_TABLES_LOADED, ST_UNWIND_KERNEL_ROWS, ST_UNWIND_KERNEL_BYTES,
	ST_UNWIND_KERNEL_RESERVED, ST_UNWIND_USER_BYTES, ST_UNWIND_PROCESSES,
	ST_UNWIND_PENDING, ST_UNWIND_MAPPINGS_DROPPED, ST_UNWIND_PROCESS_ERRORS,
	/* inputs refused by a bound (docs/design.md "Bounds"); 41-66 are
	 * the unwinder's */
	ST_REGEX_LIMITED = 70, ST_ELF_REFUSED, ST_PERFMAP_REFUSED, ST_MAPS_TRUNCATED,
	ST_BUDGET_REFUSED,
	/* the archive history's (agent/history.c) */
	ST_HISTORY_THREADS = 80, ST_HISTORY_STACKS, ST_HISTORY_DROPPED, ST_HISTORY_LOST,
	ST_HISTORY_QUEUED_BYTES, ST_HISTORY_BYTES,
	ST_NITEMS
};

/* INDOM_FLAME + profile index: each profile's flame-graph instances */
enum metric_indom { INDOM_PROCESS = 0, INDOM_HEATMAP_SLOT = 1, INDOM_FLAME = 2 };

#endif /* PMID_H */
