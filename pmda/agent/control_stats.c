/*
 * control_stats.c - the controls' figures (stackprof.stats.*, PMID cluster
 * 11): stores refused, and the work the process selection costs.
 */
#include <stddef.h>
#include "lib/stat_table.h"
#include "agent_priv.h"
#include "controls.h"

struct control_snap {
	uint64_t	bad_stores, denied_stores;
	uint64_t	filter_scans, regex_limited;
};

#define AT(f)	.offset = offsetof(struct control_snap, f)

static int
snapshot(void *handle, void *snap)
{
	const struct agent	*a = handle;
	struct control_snap	*s = snap;

	s->bad_stores = a->bad_stores;
	s->denied_stores = a->denied_stores;
	s->filter_scans = a->stats.filter_scans;
	s->regex_limited = proc_filter_regex_limited(a->filter);
	return 0;
}

static const struct stat_def rows[] = {
	{ STAT_ROW(0, "bad_stores", U64, COUNTER, COUNT), AT(bad_stores),
	  .oneline = "Stores refused as invalid",
	  .help = "" },
	{ STAT_ROW(1, "denied_stores", U64, COUNTER, COUNT), AT(denied_stores),
	  .oneline = "Stores refused because the client is not root",
	  .help = "" },
	{ STAT_ROW(2, "filter_scans", U64, COUNTER, COUNT), AT(filter_scans),
	  .oneline = "Scans of /proc to resolve stackprof.control.process",
	  .help = "One per drain interval while a regex is set, plus one per store." },
	{ STAT_ROW(3, "regex_limited", U64, COUNTER, COUNT), AT(regex_limited),
	  .oneline = "Process names the regex could not decide within its match limits",
	  .help = "A match of stackprof.control.process against a comm or command line that\n"
		"stopped at PCRE2's match (10000 steps), depth or heap limit; that process\n"
		"is not selected by it.  A pattern that backtracks exponentially shows here\n"
		"instead of stalling the PMDA." },
};

const struct stat_table control_stat_table = {
	"controls", 11, sizeof(struct control_snap), snapshot, STAT_ROWS(rows)
};
