/*
 * drain_stats.c - the pipeline's figures (stackprof.stats.*, PMID cluster
 * 10): drains and their time, the stacks and processes they handed over.
 */
#include <stddef.h>
#include "lib/stat_table.h"
#include "agent_priv.h"
#include "drain.h"

struct drain_snap {
	struct agent_stats	st;
	uint64_t		processes;	/* in the on-CPU window */
	uint64_t		bpf_loaded;	/* 0 or 1 */
};

#define AT(f)	.offset = offsetof(struct drain_snap, f)

static int
snapshot(void *handle, void *snap)
{
	const struct agent		*a = handle;
	struct drain_snap		*s = snap;
	struct window_proc *const	*procs;

	s->st = a->stats;
	s->processes = window_procs(a->profiles[PROFILE_ONCPU].window, &procs);
	s->bpf_loaded = a->sampler != NULL;
	return 0;
}

static const struct stat_def rows[] = {
	{ STAT_ROW(0, "drains", U64, COUNTER, COUNT), AT(st.drains),
	  .oneline = "Drains completed",
	  .help = "" },
	{ STAT_ROW(1, "drain_time", U64, COUNTER, USEC), AT(st.drain_time_us),
	  .oneline = "Cumulative wall time spent draining",
	  .help = "Includes symbolization and publishing." },
	{ STAT_ROW(2, "symbolize_time", U64, COUNTER, USEC), AT(st.symbolize_time_us),
	  .oneline = "Cumulative wall time spent naming frames",
	  .help = "" },
	{ STAT_ROW(3, "stacks", U64, COUNTER, COUNT), AT(st.stacks),
	  .oneline = "Aggregated stacks taken from the sampler",
	  .help = "One per (process, thread, stack) per interval." },
	{ STAT_ROW(4, "processes", U32, INSTANT, COUNT), AT(processes),
	  .oneline = "Processes in the process instance domain",
	  .help = "On-CPU processes listed now: those sampled in the last 5 drains." },
	{ STAT_ROW(5, "bpf_loaded", U32, DISCRETE, NONE), AT(bpf_loaded),
	  .oneline = "Whether the BPF sampler is loaded (1) or not (0)",
	  .help = "0 when the BPF object could not be loaded; the reason is in the PMDA log\n"
		"($PCP_LOG_DIR/pmcd/stackprof.log).  Storing 1 into\n"
		"stackprof.control.enabled tries again." },
	{ STAT_ROW(6, "drain_errors", U64, COUNTER, COUNT), AT(st.drain_errors),
	  .oneline = "Drains the sampler reported as failed",
	  .help = "" },
	{ STAT_ROW(7, "drain_time_max", U64, INSTANT, USEC), AT(st.drain_time_max_us),
	  .oneline = "Longest single drain since the agent started",
	  .help = "pmcd stops waiting for an agent after 5 seconds; a drain approaching that\n"
		"(e.g. symbolizing a very large new binary) is also logged." },
	{ STAT_ROW(8, "ustacks_cut", U64, COUNTER, COUNT), AT(st.ustacks_cut),
	  .oneline = "User stacks cut at a return address outside code",
	  .help = "Stacks (of every profile, counted once per drained stack) whose user part\n"
		"had a return address in none of the process's executable mappings: a\n"
		"frame-pointer walk read it where the code keeps no frame pointer (a\n"
		"binary whose unwind table is not loaded yet, or unwinding in fp mode).\n"
		"The frames beyond it are garbage and are left out; the stack's root is\n"
		"shown as \"[unknown]\"." },
};

const struct stat_table drain_stat_table = {
	"drain", 10, sizeof(struct drain_snap), snapshot, STAT_ROWS(rows)
};
