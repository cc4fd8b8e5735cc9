/*
 * sym_stats.c - the symbolizer's figures (stackprof.stats.*, PMID cluster
 * 12): lookups and their caches, why names fell back, inputs refused by a
 * bound, the debuginfod client's requests, and the CPython frames named.
 */
#include <stddef.h>
#include "lib/stat_table.h"
#include "symbolize.h"

struct sym_snap {
	struct symbolizer_stats		st;
	struct symbolizer_python_stats	py;
};

#define AT(f)	.offset = offsetof(struct sym_snap, f)

static int
snapshot(void *handle, void *snap)
{
	struct sym_snap	*s = snap;

	if (handle == NULL)
		return -1;	/* not started yet */
	symbolizer_get_stats(handle, &s->st);
	symbolizer_python_stats(handle, &s->py);
	return 0;
}

static uint64_t
lookups(const void *snap)
{
	const struct sym_snap	*s = snap;

	return s->st.kernel_lookups + s->st.user_lookups;
}

static const struct stat_def rows[] = {
	{ STAT_ROW(0, "lost_processes", U64, COUNTER, COUNT), AT(st.lost_processes),
	  .oneline = "Processes gone before their maps were read",
	  .help = "Their user frames get fallback names." },
	{ STAT_ROW(1, "symbol_misses", U64, COUNTER, COUNT), AT(st.misses),
	  .oneline = "Addresses that got a fallback name",
	  .help = "\"[/path]\" or \"[unknown] 0x...\"." },
	{ STAT_ROW(2, "symbol_cache_hits", U64, COUNTER, COUNT), AT(st.cache_hits),
	  .oneline = "Symbol cache hits",
	  .help = "" },
	{ STAT_ROW(3, "symbol_cache_misses", U64, COUNTER, COUNT), AT(st.cache_misses),
	  .oneline = "Symbol cache misses",
	  .help = "" },
	{ STAT_ROW(4, "symbol_cache_evictions", U64, COUNTER, COUNT), AT(st.cache_evictions),
	  .oneline = "Symbol cache entries evicted (LRU)",
	  .help = "" },
	{ STAT_ROW(5, "symbol_cache_bytes", U64, INSTANT, BYTES), AT(st.cache_bytes),
	  .oneline = "Current size of the symbol caches",
	  .help = "" },
	{ STAT_ROW(6, "symbol_lookups", U64, COUNTER, COUNT), .get = lookups,
	  .oneline = "Addresses symbolized, kernel and user",
	  .help = "" },
	{ STAT_ROW(7, "elf_errors", U64, COUNTER, COUNT), AT(st.elf_errors),
	  .oneline = "Unreadable, truncated or corrupt ELF files met",
	  .help = "" },
	{ STAT_ROW(8, "debug_mismatches", U64, COUNTER, COUNT), AT(st.debug_mismatches),
	  .oneline = "Debug files rejected",
	  .help = "Separate debug files with the wrong CRC or build-id, or undecodable\n"
		"compressed sections." },
	{ STAT_ROW(9, "perfmap_bad_lines", U64, COUNTER, COUNT), AT(st.perfmap_bad_lines),
	  .oneline = "Lines of /tmp/perf-PID.map that did not parse",
	  .help = "" },
	{ STAT_ROW(10, "proc_errors", U64, COUNTER, COUNT), AT(st.proc_errors),
	  .oneline = "/proc entries or mapped files that could not be opened",
	  .help = "" },
	{ STAT_ROW(11, "symbol_processes", U64, INSTANT, COUNT), AT(st.processes),
	  .oneline = "Processes in the symbolizer's cache now",
	  .help = "" },
	{ STAT_ROW(12, "elf_refused", U64, COUNTER, COUNT), AT(st.elf_refused),
	  .oneline = "Symbol tables refused by a bound",
	  .help = "A .symtab or .dynsym over 12 MB (524288 symbols), a string table over\n"
		"16 MB, a file claiming more than 65535 sections, or MiniDebugInfo whose\n"
		"compressed or inflated size passes 8 MB (or whose decoder needs more\n"
		"than 32 MB).  The file is named by the next source (.dynsym, a debug file)\n"
		"or by its path." },
	{ STAT_ROW(13, "perfmap_refused", U64, COUNTER, COUNT), AT(st.perfmap_refused),
	  .oneline = "JIT perf map reads refused by a bound",
	  .help = "A /tmp/perf-PID.map over 256 MB (not read at all), or one that reached\n"
		"131072 entries (read no further).  At most 1 MB of a map is read per\n"
		"drain interval; the rest waits for the next." },
	{ STAT_ROW(14, "maps_truncated", U64, COUNTER, COUNT), AT(st.maps_truncated),
	  .oneline = "/proc/PID/maps reads cut at 65536 lines",
	  .help = "Executable mappings beyond that line of a process with more mappings are\n"
		"not named." },
	{ STAT_ROW(15, "budget_refused", U64, COUNTER, COUNT), AT(st.budget_refused),
	  .oneline = "Symbol table loads put off: cache twice over its bound",
	  .help = "While the symbolizer's caches hold more than twice their 64 MB bound\n"
		"during a drain, no new symbol table is loaded and no perf map read further\n"
		"until the drain's end trims them; the frame is named by its module\n"
		"meanwhile and the table is loaded on a later lookup." },
	{ STAT_ROW(16, "debuginfod_requests", U64, COUNTER, COUNT), AT(st.debuginfod.requests),
	  .oneline = "Debug files asked of debuginfod servers",
	  .help = "One per build-id asked (a request tries every server in\n"
		"stackprof.control.debuginfod); answers from the PMDA's own cache\n"
		"($PCP_PMDAS_DIR/stackprof/state/debuginfod-cache) are not counted.  Requests\n"
		"cancelled by a change of the server list count here only if they had\n"
		"already ended." },
	{ STAT_ROW(17, "debuginfod_hits", U64, COUNTER, COUNT), AT(st.debuginfod.hits),
	  .oneline = "Debug files received and verified",
	  .help = "The file is an ELF file with the build-id asked for and function symbols." },
	{ STAT_ROW(18, "debuginfod_misses", U64, COUNTER, COUNT), AT(st.debuginfod.misses),
	  .oneline = "Debug files no server had",
	  .help = "" },
	{ STAT_ROW(19, "debuginfod_failures", U64, COUNTER, COUNT), AT(st.debuginfod.failures),
	  .oneline = "Requests that failed",
	  .help = "Timeouts (no answer within 10 seconds, or 120 seconds in all), network\n"
		"errors and answers refused (see stackprof.stats.debuginfod_rejected).  A\n"
		"build-id that was not had or failed is not asked again for 10 minutes." },
	{ STAT_ROW(20, "debuginfod_rejected", U64, COUNTER, COUNT), AT(st.debuginfod.rejected),
	  .oneline = "Answers refused",
	  .help = "Not an ELF file, another build-id, no function symbols, or larger than\n"
		"256 MB (announced or received: the download is cut off).  Nothing is\n"
		"named from a refused answer, and it is not kept." },
	{ STAT_ROW(21, "debuginfod_bytes", U64, COUNTER, BYTES), AT(st.debuginfod.bytes),
	  .oneline = "Bytes of debug files received from servers",
	  .help = "" },
	{ STAT_ROW(22, "debuginfod_cache_bytes", U64, INSTANT, BYTES), AT(st.debuginfod.cache_bytes),
	  .oneline = "Bytes in the PMDA's debuginfod cache",
	  .help = "The cache ($PCP_PMDAS_DIR/stackprof/state/debuginfod-cache, mode 0700) is kept\n"
		"under 1 GB; the least recently used files go first." },
	{ STAT_ROW(23, "debuginfod_slowest", U64, INSTANT, USEC), AT(st.debuginfod.slowest_us),
	  .oneline = "Time of the slowest debuginfod request",
	  .help = "In microseconds, since the agent started." },
	{ STAT_ROW(24, "debuginfod_named_files", U64, COUNTER, COUNT), AT(st.debuginfod.named_files),
	  .oneline = "Files whose frames got fetched names",
	  .help = "Mapped files whose symbol table was replaced by a fetched debug file's." },
	{ STAT_ROW(25, "python_processes", U64, COUNTER, COUNT), AT(py.processes),
	  .oneline = "CPython processes given to the walker",
	  .help = "Processes whose interpreter (the program or a mapped libpython3.X) the\n"
		"agent found and checked against the live process." },
	{ STAT_ROW(26, "python_unsupported", U64, COUNTER, COUNT), AT(py.unsupported),
	  .oneline = "CPython processes left native",
	  .help = "Processes that export CPython's symbols but whose version has no offsets\n"
		"here, or whose offsets did not check out against the live process\n"
		"(PyCode_Type's member table, the main thread's state through TLS).  Their\n"
		"stacks keep the native frames only." },
	{ STAT_ROW(27, "python_names", U64, COUNTER, COUNT), AT(py.names),
	  .oneline = "Python frames named",
	  .help = "Lookups of Python frames that got \"function (file)\", from the code\n"
		"object in the process's memory or from the cache." },
	{ STAT_ROW(28, "python_cache_hits", U64, COUNTER, COUNT), AT(py.cache_hits),
	  .oneline = "Python frames named from the code-object cache",
	  .help = "Each hit is checked against the object as it is now." },
	{ STAT_ROW(29, "python_cache_stale", U64, COUNTER, COUNT), AT(py.cache_stale),
	  .oneline = "Cached Python names refused: the object changed",
	  .help = "The code object at the cached address no longer had the fields it was\n"
		"named from (freed and reused): its name was read anew, or it got none." },
	{ STAT_ROW(30, "python_unnamed", U64, COUNTER, COUNT), AT(py.unnamed),
	  .oneline = "Python frames left without a name",
	  .help = "Named \"[unknown] [python]\" instead: the code object or its strings\n"
		"could not be read, or it was no code object (freed since the sample)." },
};

const struct stat_table symbolizer_stat_table = {
	"symbolizer", 12, sizeof(struct sym_snap), snapshot, STAT_ROWS(rows)
};
