/*
 * agent.h - the state of one pmdastackprof process, shared by its parts.
 *
 * main.c owns the loop; drain.c fills the window and the event queue from
 * the sampler; metrics.c serves what is there; control.c changes the knobs
 * through the agent_set_* functions below, which are the only writers of
 * the configuration.
 */
#ifndef AGENT_H
#define AGENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "sampler/sampler.h"
#include "symbolizer/symbolize.h"
#include "window.h"
#include "proc_filter.h"

/* Bounds of the storable controls (docs/design.md, "PMDA"). */
#define AGENT_FREQ_MIN		1
#define AGENT_FREQ_MAX		1000
#define AGENT_FREQ_DEFAULT	99
#define AGENT_INTERVAL_MIN	100
#define AGENT_INTERVAL_MAX	60000
#define AGENT_INTERVAL_DEFAULT	1000
#define AGENT_SLOTS_DEFAULT	50

/* What the PMDA itself measures about its drains. */
struct agent_stats {
	uint64_t	drains;		/* drains completed */
	uint64_t	drain_errors;	/* sampler_drain failures */
	uint64_t	drain_time_us;	/* cumulative wall time inside drains */
	uint64_t	drain_time_max_us;	/* longest single drain */
	uint64_t	symbolize_time_us;	/* part of it spent naming frames */
	uint64_t	stacks;		/* aggregated stacks handed over */
	uint64_t	records;	/* event records appended */
	uint64_t	bad_stores;	/* stores refused as invalid */
	uint64_t	denied_stores;	/* stores refused for permission */
	uint64_t	filter_scans;	/* /proc scans for the process regex */
};

struct agent {
	/* configuration, changed only through agent_set_* */
	bool		enabled;
	unsigned	frequency_hz;
	unsigned	interval_ms;
	unsigned	heatmap_slots;
	char		*process_regex;	/* "" = no regex */
	char		*pids_text;	/* "" = no PID list */
	struct proc_filter *filter;

	/* parts */
	struct sampler	*sampler;	/* NULL when BPF could not load */
	int		sampler_error;	/* -errno of the last failed open */
	struct symbolizer *symbolizer;
	struct stack_window *window;

	/* frequency in force during the interval being collected */
	unsigned	interval_frequency_hz;
	struct agent_stats stats;
};

extern struct agent agent;

/* Cheap set-up, before pmcd is answered. */
int agent_init(void);
/* The slow part (BPF load, kernel symbols), while pmcd knows we are not ready. */
int agent_start(void);
void agent_shutdown(void);

int agent_set_enabled(bool enabled);
int agent_set_frequency(unsigned hz);
int agent_set_interval(unsigned ms);
int agent_set_heatmap_slots(unsigned slots);
/* Both take ownership of nothing; the text is copied on success. */
int agent_set_process_regex(const char *regex);
int agent_set_pids(const char *text);

/* Push the current PID set of the filter to the sampler (each drain). */
void agent_refresh_filter(void);

/* Handle the sampler's queued exec notifications (main.c, when its fd is
 * readable): read the new programs' maps now, while they exist, and select
 * them at once if they match the process regex. */
void agent_handle_execs(void);
/* The fd to poll for exec notifications, or -1. */
int agent_exec_fd(void);

#endif /* AGENT_H */
