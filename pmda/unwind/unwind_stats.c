/*
 * unwind_stats.c - the unwind table cache's figures (stackprof.stats.*,
 * PMID cluster 13): tables built, loaded and evicted, the kernel's and the
 * PMDA's memory for them, the processes described.  The walker's own
 * counters are the sampler's (sampler_stats.c).
 */
#include <stddef.h>
#include "lib/stat_table.h"
#include "unwind.h"

#define AT(f)	.offset = offsetof(struct unwind_stats, f)

static int
snapshot(void *handle, void *snap)
{
	if (handle == NULL)
		return -1;	/* no sampler, so no cache */
	unwind_cache_stats(handle, snap);
	return 0;
}

static uint64_t
build_time_us(const void *snap)
{
	return ((const struct unwind_stats *)snap)->build_ns / 1000;
}

static const struct stat_def rows[] = {
	{ STAT_ROW(0, "unwind_builds", U64, COUNTER, COUNT), AT(builds),
	  .oneline = "Unwind tables built",
	  .help = "One per distinct file (by build-id, else device, inode, size and mtime),\n"
		"shared by every process that maps it." },
	{ STAT_ROW(1, "unwind_build_errors", U64, COUNTER, COUNT), AT(build_errors),
	  .oneline = "Files whose unwind table was refused",
	  .help = "Malformed or truncated CFI, or too large a table; counted once per file,\n"
		"whose frames then step by frame pointer." },
	{ STAT_ROW(2, "unwind_build_time", U64, COUNTER, USEC), .get = build_time_us,
	  .oneline = "Time spent building unwind tables",
	  .help = "On the agent's worker thread, never in the path of a fetch." },
	{ STAT_ROW(3, "unwind_kernel_full", U64, COUNTER, COUNT), AT(kernel_full),
	  .oneline = "Unwind tables that found no room in the kernel",
	  .help = "After idle tables were unloaded to make room, least recently used first;\n"
		"none is unloaded for a table that would not fit even then.  The kernel's\n"
		"row array holds 2^20 rows (see stackprof.stats.unwind_kernel_reserved)." },
	{ STAT_ROW(4, "unwind_evictions", U64, COUNTER, COUNT), AT(evictions),
	  .oneline = "Unwind tables unloaded",
	  .help = "Unloaded a minute after no described process maps them, or earlier when\n"
		"their rows were needed for another table (then not built again for a\n"
		"minute: see stackprof.stats.unwind_rebuilds_deferred)." },
	{ STAT_ROW(5, "unwind_tables", U64, INSTANT, COUNT), AT(tables),
	  .oneline = "Files the unwind table cache knows now",
	  .help = "Loaded, being built, or refused." },
	{ STAT_ROW(6, "unwind_tables_loaded", U64, INSTANT, COUNT), AT(tables_loaded),
	  .oneline = "Unwind tables in the kernel now",
	  .help = "" },
	{ STAT_ROW(7, "unwind_kernel_rows", U64, INSTANT, COUNT), AT(kernel_rows),
	  .oneline = "Unwind table rows in the kernel now",
	  .help = "" },
	{ STAT_ROW(8, "unwind_kernel_bytes", U64, INSTANT, BYTES), AT(kernel_bytes),
	  .oneline = "Kernel memory the loaded tables' rows use",
	  .help = "12 bytes per row, out of stackprof.stats.unwind_kernel_reserved." },
	{ STAT_ROW(9, "unwind_user_bytes", U64, INSTANT, BYTES), AT(user_bytes),
	  .oneline = "Memory of the unwind table cache in the agent",
	  .help = "File identities and layouts, processes' mappings, and built rows waiting\n"
		"to be loaded." },
	{ STAT_ROW(10, "unwind_processes", U64, INSTANT, COUNT), AT(processes),
	  .oneline = "Processes whose mappings the walker has",
	  .help = "" },
	{ STAT_ROW(11, "unwind_pending", U64, INSTANT, COUNT), AT(pending),
	  .oneline = "Unwind table builds queued or running",
	  .help = "" },
	{ STAT_ROW(12, "unwind_mappings_dropped", U64, COUNTER, COUNT), AT(mappings_dropped),
	  .oneline = "Mappings left out of a process's array",
	  .help = "A process's array holds 160 executable mappings; beyond that, mappings\n"
		"without a table (JIT regions) are left out first." },
	{ STAT_ROW(13, "unwind_process_errors", U64, COUNTER, COUNT), AT(process_errors),
	  .oneline = "Mapping arrays the kernel refused",
	  .help = "The kernel's process map (4096 processes) was full, or an array was\n"
		"invalid.  Those processes' stacks take the kernel's frame-pointer walk." },
	{ STAT_ROW(14, "unwind_too_large", U64, COUNTER, COUNT), AT(too_large),
	  .oneline = "Unwind tables refused for their size",
	  .help = "Tables larger than a quarter of the kernel's row array (2^18 rows; clang's\n"
		"libLLVM has about 979k) are refused rather than loaded at the expense of\n"
		"every other table, and are not built again while the PMDA runs.  Frames\n"
		"in those files step by frame pointer." },
	{ STAT_ROW(15, "unwind_rebuilds_deferred", U64, COUNTER, COUNT), AT(rebuilds_deferred),
	  .oneline = "Mappings of an evicted table not yet rebuilt",
	  .help = "A table unloaded to make room for another is not built again for a\n"
		"minute, so that tables cannot push each other out in a loop; processes\n"
		"mapping it meanwhile step by frame pointer in that file." },
	{ STAT_ROW(16, "unwind_builds_dropped", U64, COUNTER, COUNT), AT(builds_dropped),
	  .oneline = "Unwind tables not built: no process maps the file any more",
	  .help = "A file is built only once it has been mapped in two drain intervals, or\n"
		"by a process that lived through one; files of processes that come and go\n"
		"within an interval (a compiler's helpers, one-off programs) are not, and\n"
		"count here when their last process exits.  So do builds still queued\n"
		"when the last process mapping the file exits.  Their frames step by\n"
		"frame pointer." },
};

const struct stat_table unwind_stat_table = {
	"unwinder", 13, sizeof(struct unwind_stats), snapshot, STAT_ROWS(rows)
};
