/*
 * pmid.h - PMIDs and instance domains of pmdastackprof.
 *
 * Clusters: 0 control (storable: the items are the control table's, in
 * agent/control_table.c), 1 oncpu, 2 heatmap, 4 offcpu, 5 pagefault, 6
 * offwake; a profile's cluster comes from its row in agent/profiles.c and
 * holds the items of enum profile_item.  stackprof.stats.* are the parts'
 * stats tables (agent/stat_tables.c), each its own cluster: 3 sampler, 10
 * drain, 11 controls, 12 symbolizer, 13 unwinder, 14 history, 15 events;
 * clusters 7-9 are left for profiles.  The full list with types is in metrics.c
 * and docs/design.md ("PMDA").
 */
#ifndef PMID_H
#define PMID_H

enum metric_cluster { CL_CONTROL = 0, CL_ONCPU = 1, CL_HEATMAP = 2 };

/* The items of every profile's cluster (stackprof.NAME.*). */
enum profile_item {
	PROF_STACKS = 0, PROF_FOLDED = 1, PROF_SAMPLES = 2, PROF_HISTORY = 3,
	PROF_FLAME = 4,
	/* parameters of the stackprof.NAME.stacks records */
	REC_STACK = 10, REC_COUNT, REC_PID, REC_TID, REC_COMM, REC_PROCESS,
	REC_TYPE, REC_VALUE,
};

enum heatmap_item { HEAT_ONCPU = 0 };

/* INDOM_FLAME + profile index: each profile's flame-graph instances */
enum metric_indom { INDOM_PROCESS = 0, INDOM_HEATMAP_SLOT = 1, INDOM_FLAME = 2 };

#endif /* PMID_H */
