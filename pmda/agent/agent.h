/*
 * agent.h - the state of one pmdastackprof process and its parts.
 *
 * main.c owns the one struct agent and hands it to every part: drain.c
 * fills each profile's window, event queue and history from the sampler, pcp/ serves what is
 * there, and controls.c (the control table) is the only code that changes
 * the configuration, through the agent_set_* setters below.
 */
#ifndef AGENT_H
#define AGENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "sampler/sampler.h"
#include "symbolizer/symbolize.h"
#include "control_parse.h"
#include "profiles.h"
#include "proc_filter.h"
#include "unwinder.h"

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
	unsigned	offcpu_min_us;	/* shorter blocks are not counted */
	unsigned	pagefault;	/* page-fault profile: 0 or 1 */
	unsigned	pagefault_period; /* one fault sampled in this many */
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

	/* private to controls.c: the state file and which controls it holds */
	char		*state_path;
	uint64_t	stored;		/* bit i: controls[i] was stored */
};

/* Cheap set-up, before pmcd is answered: the parts that need no privilege,
 * the configuration zeroed until controls_reset() gives it its defaults. */
struct agent *agent_new(void);
/* The slow part, while pmcd knows we are not ready: the symbolizer, then
 * the BPF sampler when with_bpf (without it the agent serves what it is
 * handed, as when BPF cannot load; unit tests).  No thread starts here:
 * capabilities are per thread, and main drops them after this. */
int agent_start(struct agent *a, bool with_bpf);
/* Then, with privileges dropped: the debuginfod workers (libdebuginfod's
 * environment is set before any other thread) and the unwind table
 * worker.  Each logs and leaves its feature off when it cannot start. */
void agent_start_threads(struct agent *a);
void agent_free(struct agent *a);

/* Who takes the stacks sampler_reconfigure hands over between drains (the
 * drain, which publishes them with its next interval). */
void agent_on_handover(struct agent *a, sampler_stack_fn fn, void *arg);

/*
 * The setters of the control table (controls.c): each is called with a
 * value the table has already checked, applies it to the sampler first and
 * records it only if that worked, so a refused change leaves everything as
 * it was.  A setter may take a parsed part of v (regex, pids) by setting it
 * to NULL; the caller releases whatever is left.
 */
int agent_set_enabled(struct agent *a, struct control_value *v);
int agent_set_frequency(struct agent *a, struct control_value *v);
int agent_set_interval(struct agent *a, struct control_value *v);
int agent_set_heatmap_slots(struct agent *a, struct control_value *v);
int agent_set_process(struct agent *a, struct control_value *v);
int agent_set_pids(struct agent *a, struct control_value *v);
int agent_set_unwind(struct agent *a, struct control_value *v);
int agent_set_debuginfod(struct agent *a, struct control_value *v);
int agent_set_offcpu(struct agent *a, struct control_value *v);
int agent_set_offcpu_min_us(struct agent *a, struct control_value *v);
int agent_set_pagefault(struct agent *a, struct control_value *v);
int agent_set_pagefault_period(struct agent *a, struct control_value *v);

/* Push the current PID set of the filter to the sampler (each drain). */
void agent_refresh_filter(struct agent *a);

/* Handle the sampler's queued events (main.c, when its fd is readable):
 * read an exec'd program's maps now, while they exist, and select it at
 * once if it matches the process regex; hand the walker's requests for
 * fresh maps and process exits to the unwinder. */
void agent_handle_execs(struct agent *a);
/* The fd to poll for those events, or -1. */
int agent_exec_fd(const struct agent *a);
/* The fd that is readable when unwind tables are built, or -1; then
 * agent_handle_unwind loads them. */
int agent_unwind_fd(const struct agent *a);
void agent_handle_unwind(struct agent *a);

#endif /* AGENT_H */
