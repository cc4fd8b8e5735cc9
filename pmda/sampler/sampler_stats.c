/*
 * sampler_stats.c - the sampler's figures (stackprof.stats.*, PMID cluster
 * 3): what the BPF programs count (the sp_stat array: samples, losses, the
 * user stack walker's steps and cuts, the Python frames it walked, off-CPU
 * and page-fault events), their run time, and the kernel memory the unwind
 * tables reserve.
 *
 * Cluster 3 once held every statistic; the sampler's rows kept their items
 * there, so their PMIDs in older archives still match.
 */
#include <stddef.h>
#include "lib/stat_table.h"
#include "sampler.h"

struct sampler_snap {
	struct sampler_stats	st;
	uint64_t		unwind_reserved;	/* sampler_unwind_usage's table_bytes */
};

#define AT(f)	.offset = offsetof(struct sampler_snap, f)
#define SP(i)	AT(st.stat[i])

static int
snapshot(void *handle, void *snap)
{
	struct sampler_snap		*s = snap;
	struct sampler_unwind_usage	u;

	if (handle == NULL || sampler_read_stats(handle, &s->st) < 0)
		return -1;
	sampler_unwind_usage(handle, &u);
	s->unwind_reserved = u.table_bytes;
	return 0;
}

static const struct stat_def rows[] = {
	{ STAT_ROW(0, "samples", U64, COUNTER, COUNT), SP(SP_STAT_SAMPLES),
	  .oneline = "Samples taken for selected processes",
	  .help = "" },
	{ STAT_ROW(1, "filtered", U64, COUNTER, COUNT), SP(SP_STAT_FILTERED),
	  .oneline = "Samples of processes outside the selection",
	  .help = "They cost one map lookup each in BPF and are not aggregated." },
	{ STAT_ROW(2, "idle", U64, COUNTER, COUNT), SP(SP_STAT_IDLE),
	  .oneline = "Samples that hit the idle task",
	  .help = "" },
	{ STAT_ROW(3, "map_full", U64, COUNTER, COUNT), SP(SP_STAT_MAP_FULL),
	  .oneline = "Samples lost because the count map was full",
	  .help = "The maps are sized from CPUs x frequency x interval; a rising value means\n"
		"more distinct stacks than that per interval." },
	{ STAT_ROW(4, "kstack_collisions", U64, COUNTER, COUNT), SP(SP_STAT_KSTACK_COLLISION),
	  .oneline = "Kernel stack ids lost to hash collisions",
	  .help = "bpf_get_stackid() returned -EEXIST; the sample is kept without its kernel\n"
		"stack." },
	{ STAT_ROW(5, "ustack_collisions", U64, COUNTER, COUNT), SP(SP_STAT_USTACK_COLLISION),
	  .oneline = "User stacks lost to hash collisions",
	  .help = "A user stack is stored under a 64-bit hash of its pcs and compared in full\n"
		"on lookup; a different stack under the same hash is retried at a second\n"
		"key, and when that is taken too the sample is kept without its user stack\n"
		"and counted here.  Different stacks are never merged." },
	{ STAT_ROW(6, "kstack_missing", U64, COUNTER, COUNT), SP(SP_STAT_KSTACK_MISSING),
	  .oneline = "Kernel stacks that could not be read",
	  .help = "" },
	{ STAT_ROW(7, "ustack_missing", U64, COUNTER, COUNT), SP(SP_STAT_USTACK_MISSING),
	  .oneline = "User stacks that could not be read",
	  .help = "Kernel threads, which have none, are not counted." },
	{ STAT_ROW(8, "bpf_run_time", U64, COUNTER, NSEC), AT(st.bpf_run_time_ns),
	  .oneline = "Cumulative run time of the BPF program",
	  .help = "Reported by the kernel only while sysctl kernel.bpf_stats_enabled=1,\n"
		"otherwise 0." },
	{ STAT_ROW(9, "bpf_run_count", U64, COUNTER, COUNT), AT(st.bpf_run_count),
	  .oneline = "Runs of the BPF program",
	  .help = "Reported by the kernel only while sysctl kernel.bpf_stats_enabled=1." },
	{ STAT_ROW(30, "execs", U64, COUNTER, COUNT), SP(SP_STAT_EXECS),
	  .oneline = "Program executions seen by the sampler",
	  .help = "Each exec lets the PMDA read the new program's maps at once (so even\n"
		"processes that exit before the next drain are symbolized) and match it\n"
		"against stackprof.control.process." },
	{ STAT_ROW(31, "exec_lost", U64, COUNTER, COUNT), SP(SP_STAT_EXEC_LOST),
	  .oneline = "Exec notifications lost (ring buffer full)",
	  .help = "" },
	{ STAT_ROW(41, "unwind_table_frames", U64, COUNTER, COUNT), SP(SP_STAT_UNWIND_TABLE_FRAMES),
	  .oneline = "User frames stepped with an unwind table row",
	  .help = "Frames the BPF walker stepped with a row compiled from the binary's CFI\n"
		"(stackprof.control.unwind auto)." },
	{ STAT_ROW(42, "unwind_fp_frames", U64, COUNTER, COUNT), SP(SP_STAT_UNWIND_FP_FRAMES),
	  .oneline = "User frames stepped by frame pointer",
	  .help = "Frames the BPF walker stepped by the frame pointer because no row covered\n"
		"the pc (no table for the mapping yet, JIT code, a gap in the CFI)." },
	{ STAT_ROW(43, "unwind_complete", U64, COUNTER, COUNT), SP(SP_STAT_UNWIND_COMPLETE),
	  .oneline = "User stacks walked to their outermost frame",
	  .help = "An end-of-stack row (_start) or a zero return address was reached." },
	{ STAT_ROW(44, "unwind_trunc_depth", U64, COUNTER, COUNT), SP(SP_STAT_UNWIND_TRUNC_DEPTH),
	  .oneline = "User stacks cut at 127 frames",
	  .help = "" },
	{ STAT_ROW(45, "unwind_trunc_read", U64, COUNTER, COUNT), SP(SP_STAT_UNWIND_TRUNC_READ),
	  .oneline = "User stacks cut by unreadable user memory",
	  .help = "A return address or saved register could not be read (paged out, or a\n"
		"bad stack pointer)." },
	{ STAT_ROW(46, "unwind_trunc_norule", U64, COUNTER, COUNT), SP(SP_STAT_UNWIND_TRUNC_NORULE),
	  .oneline = "User stacks cut for want of any rule",
	  .help = "No table row for the pc, and the frame pointer was not a usable one." },
	{ STAT_ROW(47, "unwind_no_mapping", U64, COUNTER, COUNT), SP(SP_STAT_UNWIND_NO_MAPPING),
	  .oneline = "User frames whose pc is in no known mapping",
	  .help = "The process's mapping array did not hold the pc (e.g. a library loaded\n"
		"with dlopen since it was read); the walker asks for a refresh, see\n"
		"stackprof.stats.unwind_refreshes." },
	{ STAT_ROW(48, "unwind_no_table", U64, COUNTER, COUNT), SP(SP_STAT_UNWIND_NO_TABLE),
	  .oneline = "User frames in a mapping without a table",
	  .help = "Table misses: the mapping's table is not loaded (being built, refused, no\n"
		"room) or the pc lies before its first row." },
	{ STAT_ROW(49, "unwind_no_process", U64, COUNTER, COUNT), SP(SP_STAT_UNWIND_NO_PROCESS),
	  .oneline = "User stacks of processes not yet described",
	  .help = "Samples of a process before the agent gave the walker its mappings (its\n"
		"first interval, unless it was seen at exec) take the kernel's frame-pointer\n"
		"walk." },
	{ STAT_ROW(50, "unwind_refreshes", U64, COUNTER, COUNT), SP(SP_STAT_UNWIND_REFRESH),
	  .oneline = "Mapping refreshes the walker asked for",
	  .help = "For a pc in none of the process's mappings (dlopen, JIT code), or in a file\n"
		"mapping whose table a retry may yet give (its file did not open, or its\n"
		"table found no room); at most one every 250 ms per process.  The agent acts\n"
		"on retries with a back-off of 1 s doubling to 64 s." },
	{ STAT_ROW(51, "ustack_map_full", U64, COUNTER, COUNT), SP(SP_STAT_USTACK_MAP_FULL),
	  .oneline = "User stacks not stored: the user stack map was full",
	  .help = "The sample is kept without its user stack." },
	{ STAT_ROW(61, "unwind_kernel_reserved", U64, INSTANT, BYTES), AT(unwind_reserved),
	  .oneline = "Kernel memory of the row array and table directory",
	  .help = "Allocated when the BPF object loads, whatever is loaded: 12 MiB of rows\n"
		"(2^20 rows of 12 bytes) and the directory of 4096 tables.  The mapping\n"
		"arrays of described processes (at most 4 KiB each) come on top." },
	{ STAT_ROW(100, "offcpu_switches", U64, COUNTER, COUNT), SP(SP_STAT_SWITCHES),
	  .oneline = "Context switches the off-CPU program saw",
	  .help = "Counted only while stackprof.control.offcpu is 1." },
	{ STAT_ROW(101, "offcpu_intervals", U64, COUNTER, COUNT), SP(SP_STAT_OFFCPU_INTERVALS),
	  .oneline = "Off-CPU blocks counted",
	  .help = "" },
	{ STAT_ROW(102, "offcpu_usec", U64, COUNTER, USEC), SP(SP_STAT_OFFCPU_USEC),
	  .oneline = "Microseconds of the off-CPU blocks counted",
	  .help = "The sum of every stackprof.offcpu count drained (less offcpu_map_full)." },
	{ STAT_ROW(103, "offcpu_short", U64, COUNTER, COUNT), SP(SP_STAT_OFFCPU_SHORT),
	  .oneline = "Off-CPU blocks shorter than offcpu_min_us",
	  .help = "Not counted in stackprof.offcpu.*." },
	{ STAT_ROW(104, "offcpu_short_usec", U64, COUNTER, USEC), SP(SP_STAT_OFFCPU_SHORT_USEC),
	  .oneline = "Microseconds of the blocks too short to count",
	  .help = "" },
	{ STAT_ROW(105, "offcpu_map_full", U64, COUNTER, COUNT), SP(SP_STAT_OFFCPU_MAP_FULL),
	  .oneline = "Off-CPU blocks lost: a BPF map was full",
	  .help = "" },
	{ STAT_ROW(106, "offcpu_filtered", U64, COUNTER, COUNT), SP(SP_STAT_OFFCPU_FILTERED),
	  .oneline = "Sleeps of processes outside the selection",
	  .help = "" },
	{ STAT_ROW(107, "offcpu_bpf_run_time", U64, COUNTER, NSEC), AT(st.offcpu_run_time_ns),
	  .oneline = "Cumulative run time of the off-CPU programs",
	  .help = "The sched_switch program and, where they run, the rseq_update (or sys_exit)\n"
		"program that takes a counted block's user stack and the sched_waking program\n"
		"that takes its waker's (off-wake).  Reported by the kernel only while\n"
		"sysctl kernel.bpf_stats_enabled=1, otherwise 0." },
	{ STAT_ROW(108, "offcpu_bpf_run_count", U64, COUNTER, COUNT), AT(st.offcpu_run_count),
	  .oneline = "Runs of the sched_switch program",
	  .help = "Reported by the kernel only while sysctl kernel.bpf_stats_enabled=1." },
	{ STAT_ROW(109, "offcpu_sampled", U64, COUNTER, COUNT), SP(SP_STAT_OFFCPU_SAMPLED),
	  .oneline = "Short off-CPU blocks counted by the draw",
	  .help = "Blocks shorter than stackprof.control.offcpu_min_us that the one in\n"
		"stackprof.control.offcpu_sample draw kept; each was counted as that many\n"
		"times its length." },
	{ STAT_ROW(115, "offcpu_no_user", U64, COUNTER, COUNT), SP(SP_STAT_OFFCPU_NO_USER),
	  .oneline = "Off-CPU blocks counted without their user stack",
	  .help = "The thread ran user code between the end of the block and its count (a\n"
		"block that did not end in a system call's return, such as one in a page\n"
		"fault), so the user registers were no longer the block's." },
	{ STAT_ROW(116, "offcpu_kstack_cut", U64, COUNTER, COUNT), SP(SP_STAT_OFFCPU_KSTACK_CUT),
	  .oneline = "Off-CPU kernel stacks without their scheduler frames",
	  .help = "The kernel gives a sleeping thread's stack without its scheduler and lock\n"
		"functions (schedule, __mutex_lock...); they are found on that thread's\n"
		"stack.  Counted when they were not: the stack starts at its first other\n"
		"function." },
	{ STAT_ROW(140, "offwake_wakers", U64, COUNTER, COUNT), SP(SP_STAT_OFFWAKE_WAKERS),
	  .oneline = "Waker stacks taken for the off-wake profile",
	  .help = "Wakes of a thread blocked at least stackprof.control.offcpu_min_us by then,\n"
		"while stackprof.control.offwake and offcpu are 1." },
	{ STAT_ROW(141, "offwake_intervals", U64, COUNTER, COUNT), SP(SP_STAT_OFFWAKE_INTERVALS),
	  .oneline = "Off-CPU blocks counted with their waker",
	  .help = "" },
	{ STAT_ROW(142, "offwake_usec", U64, COUNTER, USEC), SP(SP_STAT_OFFWAKE_USEC),
	  .oneline = "Microseconds of the off-wake blocks counted",
	  .help = "The sum of every stackprof.offwake count drained (less offwake_map_full)." },
	{ STAT_ROW(143, "offwake_no_waker", U64, COUNTER, COUNT), SP(SP_STAT_OFFWAKE_NO_WAKER),
	  .oneline = "Off-CPU blocks counted without a waker",
	  .help = "While stackprof.control.offwake is 1: blocks counted off-CPU but not\n"
		"off-wake, since no waker stack was taken: woken before\n"
		"stackprof.control.offcpu_min_us but counted, the run queue's wait\n"
		"included, or shorter blocks the offcpu_sample draw kept." },
	{ STAT_ROW(144, "offwake_map_full", U64, COUNTER, COUNT), SP(SP_STAT_OFFWAKE_MAP_FULL),
	  .oneline = "Wakers or off-wake blocks lost: a BPF map was full",
	  .help = "" },
	{ STAT_ROW(110, "pagefault_samples", U64, COUNTER, COUNT), SP(SP_STAT_PAGEFAULT_SAMPLES),
	  .oneline = "Page-fault samples of selected processes",
	  .help = "" },
	{ STAT_ROW(111, "pagefault_filtered", U64, COUNTER, COUNT), SP(SP_STAT_PAGEFAULT_FILTERED),
	  .oneline = "Page-fault samples of processes outside the selection",
	  .help = "" },
	{ STAT_ROW(112, "pagefault_map_full", U64, COUNTER, COUNT), SP(SP_STAT_PAGEFAULT_MAP_FULL),
	  .oneline = "Page-fault samples lost: the count map was full",
	  .help = "" },
	{ STAT_ROW(113, "pagefault_bpf_run_time", U64, COUNTER, NSEC), AT(st.pagefault_run_time_ns),
	  .oneline = "Cumulative run time of the page-fault program",
	  .help = "Reported by the kernel only while sysctl kernel.bpf_stats_enabled=1,\n"
		"otherwise 0." },
	{ STAT_ROW(114, "pagefault_bpf_run_count", U64, COUNTER, COUNT), AT(st.pagefault_run_count),
	  .oneline = "Runs of the page-fault program",
	  .help = "Reported by the kernel only while sysctl kernel.bpf_stats_enabled=1." },
	{ STAT_ROW(130, "python_eval_frames", U64, COUNTER, COUNT), SP(SP_STAT_INTERP_LOOPS),
	  .oneline = "Eval-loop frames replaced by their Python frames",
	  .help = "Native frames in CPython's _PyEval_EvalFrameDefault that the walker\n"
		"replaced by the Python frames that call of the eval loop runs (see\n"
		"stackprof.control.interpreters)." },
	{ STAT_ROW(131, "python_frames", U64, COUNTER, COUNT), SP(SP_STAT_INTERP_FRAMES),
	  .oneline = "Python frames recorded in user stacks",
	  .help = "" },
	{ STAT_ROW(132, "python_no_thread", U64, COUNTER, COUNT), SP(SP_STAT_INTERP_NO_THREAD),
	  .oneline = "Eval-loop frames left native: no thread state",
	  .help = "The thread's state could not be read through its TLS, or it did not\n"
		"belong to the interpreter the agent checked.  The stack keeps its native\n"
		"frames." },
	{ STAT_ROW(133, "python_bad_chains", U64, COUNTER, COUNT), SP(SP_STAT_INTERP_BAD_CHAIN),
	  .oneline = "Python frame chains cut: unreadable or not frames",
	  .help = "A frame of the chain could not be read, was misaligned, held no code\n"
		"object pointer or pointed at itself.  The Python frames recorded until\n"
		"then stay and the native walk goes on." },
};

const struct stat_table sampler_stat_table = {
	"sampler", 3, sizeof(struct sampler_snap), snapshot, STAT_ROWS(rows)
};
