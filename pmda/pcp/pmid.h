/*
 * pmid.h - PMIDs and instance domains of pmdastackprof.
 *
 * Clusters: 0 control (storable: the items are the control table's, in
 * agent/control_table.c), 1 oncpu, 2 heatmap, 3 stats.  The full list
 * with types is in metrics.c and docs/design.md ("PMDA").
 */
#ifndef PMID_H
#define PMID_H

enum metric_cluster { CL_CONTROL = 0, CL_ONCPU = 1, CL_HEATMAP = 2, CL_STATS = 3 };

enum oncpu_item {
	ONCPU_STACKS = 0, ONCPU_FOLDED = 1, ONCPU_SAMPLES = 2,
	/* parameters of the stackprof.oncpu.stacks records */
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
	ST_NITEMS
};

enum metric_indom { INDOM_PROCESS = 0, INDOM_HEATMAP_SLOT = 1 };

#endif /* PMID_H */
