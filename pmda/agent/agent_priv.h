/*
 * agent_priv.h - the agent's state: its parts, configuration and figures.
 * Private to pmda/agent/; everything outside goes through agent.h.
 */
#ifndef AGENT_PRIV_H
#define AGENT_PRIV_H

#include "agent.h"

/* What the PMDA itself measures about its drains. */
struct agent_stats {
	uint64_t	drains;		/* drains completed */
	uint64_t	drain_errors;	/* sampler_drain failures */
	uint64_t	drain_time_us;	/* cumulative wall time inside drains */
	uint64_t	drain_time_max_us;	/* longest single drain */
	uint64_t	symbolize_time_us;	/* part of it spent naming frames */
	uint64_t	stacks;		/* aggregated stacks handed over */
	uint64_t	records;	/* event records appended */
	uint64_t	filter_scans;	/* /proc scans for the process regex */
	uint64_t	ustacks_cut;	/* user stacks cut at a return address
					 * outside code (drain_fold_stack) */
};

/* The value of every stackprof.control.* metric.  u32 controls are
 * unsigned, string controls char * (never NULL); controls.c finds each by
 * its offset.  Written only by the agent_set_* setters. */
struct agent_config {
	unsigned	enabled;	/* 0 or 1 */
	unsigned	frequency_hz;
	unsigned	interval_ms;
	unsigned	heatmap_slots;
	char		*process_regex;	/* "" = no regex */
	char		*pids_text;	/* "" = no PID list */
	char		*unwind;	/* "auto" or "fp" */
	char		*debuginfod_urls; /* "" = no servers asked */
	unsigned	offcpu;		/* off-CPU profile: 0 or 1 */
	unsigned	offcpu_min_us;	/* shorter blocks are sampled */
	unsigned	offcpu_sample;	/* 1 in this many of those is counted */
	unsigned	offwake;	/* off-wake profile (with offcpu): 0 or 1 */
	unsigned	pagefault;	/* page-fault profile: 0 or 1 */
	unsigned	pagefault_period; /* one fault sampled in this many */
	unsigned	interpreters;	/* Python frames in user stacks: 0 or 1 */
	unsigned	keyframe_s;	/* the histories' keyframe period, 0: none */
};

struct agent {
	struct agent_config config;

	/* parts */
	struct proc_filter *filter;
	struct sampler	*sampler;	/* NULL when BPF could not load */
	int		sampler_error;	/* -errno of the last failed open */
	struct symbolizer *symbolizer;
	struct profile	profiles[NPROFILES];	/* one per row of profile_defs */
	struct unwinder	*unwinder;	/* NULL without a sampler */
	/* where debuginfod answers are kept (main.c sets it before
	 * agent_start_threads; NULL: no debuginfod), and why it could not be
	 * used */
	const char	*debuginfod_cache;
	int		debuginfod_error;	/* -errno, or 0 */

	/* frequency in force during the interval being collected */
	unsigned	interval_frequency_hz;
	struct agent_stats stats;

	/* private to agent.c */
	bool		started;	/* agent_start ran: setters reach the sampler */
	bool		with_bpf;	/* agent_start was asked to load BPF */
	bool		threads;	/* agent_start_threads ran */
	sampler_stack_fn handover;	/* takes stacks sampler_reconfigure hands over */
	void		*handover_arg;
	bool		filter_retry;	/* the sampler refused the last filter */
	enum sp_unwind_mode unwind_mode; /* config.unwind, parsed */

	/* private to controls.c: the state file and which controls it holds,
	 * and the stores refused (control_stats.c reads them) */
	char		*state_path;
	uint64_t	stored;		/* bit i: controls[i] was stored */
	uint64_t	bad_stores;	/* bad values */
	uint64_t	denied_stores;	/* not from root */
};

#endif /* AGENT_PRIV_H */
