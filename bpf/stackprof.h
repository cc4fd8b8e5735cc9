/*
 * stackprof.h - the single definition of the data that crosses between the
 * BPF sampler (bpf/stackprof.bpf.c) and pmdastackprof (pmda/).
 *
 * Included both by BPF code (after vmlinux.h) and by user space (after
 * <linux/types.h>), so it uses only __u32/__u64-style types and includes
 * nothing itself.
 */
#ifndef STACKPROF_H
#define STACKPROF_H

#define SP_COMM_LEN		16	/* TASK_COMM_LEN */
#define SP_MAX_STACK_DEPTH	127	/* PERF_MAX_STACK_DEPTH */
#define SP_HEATMAP_MAX_SLOTS	1000	/* finest heat map: 1 ms slices */
#define SP_GENERATIONS		2	/* count maps alternated at each drain */

/*
 * A stack id with this bit set indexes the generation's overflow stack map:
 * the sampler retries there, in a map of another size and so another bucket,
 * when the main map's bucket already holds a different stack (-EEXIST).
 */
#define SP_STACK_OVERFLOW	0x40000000

/*
 * One aggregation key: samples with equal keys are summed in the kernel.
 * The kernel stack id indexes the stack-trace maps of the same generation;
 * a negative id is the -errno bpf_get_stackid() returned (e.g. -EEXIST on a
 * a collision in both maps, -EFAULT when there is no stack: a user-mode
 * sample has no kernel stack) and is counted in sp_stat unless it is such
 * a legitimately empty stack.  The user stack is the key of its pcs in the
 * generation's user stack map (struct sp_user_stack), or one of SP_USTACK_*.
 *
 * Every profile uses this key; each has its own count maps, whose value is
 * what it counts: samples (on-CPU), microseconds blocked (off-CPU),
 * estimated faults, samples x period (page faults).  Off-CPU stacks are
 * taken at switch-out and stored at switch-in, possibly generations
 * later, so they are not in the STACK_TRACE maps: both its stacks are in
 * the generation's off-CPU stack map (struct sp_user_stack values, keyed
 * like user stacks), kernel_stack_id being the key of the kernel one
 * (SP_OFFCPU_KSTACK_MASK bits, so never negative) or -errno.
 */
struct sp_stack_key {
	__u32	tgid;			/* process id */
	__u32	tid;			/* thread id */
	__s32	kernel_stack_id;
	__u32	start;			/* process start (group leader's start_boottime) in
					   clock ticks of 10 ms, low 32 bits: /proc/PID/stat's
					   starttime; a reused tgid is another process */
	__u64	user_stack;		/* user stack map key, or SP_USTACK_NONE/_LOST */
	char	comm[SP_COMM_LEN];	/* thread name */
	char	pcomm[SP_COMM_LEN];	/* process (group leader) name */
};

/*
 * The off-wake profile's key: an off-CPU key (the blocked thread, its
 * stacks) and the thread that woke it, whose stacks were taken at the
 * wake (sched_waking, in the waker's context).  Both waker stacks are in
 * the generation's off-wake stack maps, keyed as the off-CPU ones; the
 * count is microseconds blocked.
 */
struct sp_wake_key {
	struct sp_stack_key blocked;
	__u32	waker_tgid;		/* the waker's process: names its user frames */
	__s32	waker_kernel_stack_id;	/* key in the off-wake kernel stack map, or -errno */
	__u64	waker_user_stack;	/* key in the off-wake user stack map, or SP_USTACK_* */
	char	waker_comm[SP_COMM_LEN];
};

/* user_stack values no stored stack has (hashes below are moved up). */
#define SP_USTACK_NONE		0	/* no user stack: kernel thread, or nothing readable */
#define SP_USTACK_LOST		1	/* stack not stored (hash collision twice, map
					   full): the sample is kept, its user stack not */
#define SP_USTACK_RESERVED	2

/* An off-CPU kernel stack's key keeps these bits (a non-negative __s32). */
#define SP_OFFCPU_KSTACK_MASK	0x7fffffffULL

/*
 * One user stack as the kernel stored it: pcs innermost first, nframes of
 * them; pcs[0] is the interrupted instruction, the others return addresses.
 * Keyed by a 64-bit hash of the pcs; a stack whose hash is taken by another
 * stack is stored at a second key, else counted lost (SP_USTACK_LOST), so
 * two different stacks never share a key.
 */
struct sp_user_stack {
	__u32	nframes;
	__u32	end;			/* enum sp_unwind_end: why the walk stopped */
	__u64	pcs[SP_MAX_STACK_DEPTH];
};

/* Indexes of the per-CPU statistics array; all are cumulative counts. */
enum sp_stat {
	SP_STAT_SAMPLES = 0,		/* samples taken for selected processes */
	SP_STAT_FILTERED,		/* samples of unselected processes */
	SP_STAT_IDLE,			/* samples of the idle task (pid 0) */
	SP_STAT_MAP_FULL,		/* samples lost: count map full */
	SP_STAT_KSTACK_COLLISION,	/* kernel stack id -EEXIST */
	SP_STAT_USTACK_COLLISION,	/* user stack id -EEXIST */
	SP_STAT_KSTACK_MISSING,		/* kernel stack id other error */
	SP_STAT_USTACK_MISSING,		/* user stack id other error (not kernel thread) */
	SP_STAT_EXECS,			/* sched_process_exec events seen */
	SP_STAT_EXEC_LOST,		/* exec (and unwind) events lost: ring buffer full */
	/* user stack unwinding (appended: the PMDA's metric items map onto these) */
	SP_STAT_UNWIND_TABLE_FRAMES,	/* frames stepped by an unwind-table row */
	SP_STAT_UNWIND_FP_FRAMES,	/* frames stepped by the frame pointer */
	SP_STAT_UNWIND_COMPLETE,	/* stacks walked to their outermost frame */
	SP_STAT_UNWIND_TRUNC_DEPTH,	/* stacks cut at SP_MAX_STACK_DEPTH frames */
	SP_STAT_UNWIND_TRUNC_READ,	/* stacks cut: user memory unreadable */
	SP_STAT_UNWIND_TRUNC_NORULE,	/* stacks cut: no row, and no usable frame pointer */
	SP_STAT_UNWIND_NO_MAPPING,	/* frames whose pc is in no known mapping */
	SP_STAT_UNWIND_NO_TABLE,	/* frames in a mapping without a table (yet) */
	SP_STAT_UNWIND_NO_PROCESS,	/* stacks of processes with no mapping array:
					   the kernel's frame-pointer walk */
	SP_STAT_UNWIND_REFRESH,		/* mapping refreshes asked for (dlopen, JIT) */
	SP_STAT_USTACK_MAP_FULL,	/* user stacks not stored: map full (SP_USTACK_LOST) */
	/* off-CPU (appended likewise) */
	SP_STAT_SWITCHES,		/* context switches seen while off-CPU is on */
	SP_STAT_OFFCPU_INTERVALS,	/* blocked intervals recorded */
	SP_STAT_OFFCPU_USEC,		/* microseconds they added up to */
	SP_STAT_OFFCPU_SHORT,		/* intervals dropped: shorter than offcpu_min_us */
	SP_STAT_OFFCPU_SHORT_USEC,	/* microseconds those were */
	SP_STAT_OFFCPU_MAP_FULL,	/* intervals dropped: no room to keep the sleeper
					   or to count its stack */
	SP_STAT_OFFCPU_FILTERED,	/* sleeps of unselected processes */
	/* page faults */
	SP_STAT_PAGEFAULT_SAMPLES,	/* fault samples of selected processes */
	SP_STAT_PAGEFAULT_FILTERED,	/* fault samples of unselected processes */
	SP_STAT_PAGEFAULT_MAP_FULL,	/* fault samples lost: count map full */
	/* interpreter frames (appended likewise) */
	SP_STAT_INTERP_LOOPS,		/* eval-loop frames replaced by their Python frames */
	SP_STAT_INTERP_FRAMES,		/* Python frames recorded */
	SP_STAT_INTERP_NO_THREAD,	/* eval-loop frames left native: no thread state
					   (TLS unreadable, or not this interpreter's) */
	SP_STAT_INTERP_BAD_CHAIN,	/* Python walks stopped: frame unreadable, or
					   not a frame (misaligned, looped) */
	/* off-CPU, continued */
	SP_STAT_OFFCPU_SAMPLED,		/* short intervals kept by the 1 in offcpu_sample draw */
	SP_STAT_OFFCPU_NO_USER,		/* intervals counted without their user stack: the
					   thread ran user code before it was counted */
	SP_STAT_OFFCPU_KSTACK_CUT,	/* kernel stacks of a sleeping thread kept without
					   their scheduler frames (not found) */
	/* off-wake (appended likewise) */
	SP_STAT_OFFWAKE_WAKERS,		/* waker stacks taken at a wake */
	SP_STAT_OFFWAKE_INTERVALS,	/* blocks counted with their waker */
	SP_STAT_OFFWAKE_USEC,		/* microseconds they added up to */
	SP_STAT_OFFWAKE_NO_WAKER,	/* off-CPU blocks counted without a waker: woken
					   before offcpu_min_us, or a drawn short block */
	SP_STAT_OFFWAKE_MAP_FULL,	/* wakes or blocks lost: a map was full */
	SP_STAT_NR
};

/* The per-CPU statistics array: one element, one counter per sp_stat. */
struct sp_stats {
	__u64	stat[SP_STAT_NR];
};

/*
 * The per-CPU heat map: one element, slot[i] counts the selected samples
 * whose wall-clock offset within their second fell in slice i of the
 * heatmap_slots slices in force.  Cumulative; reset when the slice count
 * changes.
 */
struct sp_heatmap {
	__u64	slot[SP_HEATMAP_MAX_SLOTS];
};

/* One notification in the exec ring buffer. */
enum sp_event_kind {
	SP_EVENT_EXEC = 0,		/* tgid exec'd */
	SP_EVENT_MAPS,			/* the walker met a pc in none of tgid's mappings */
	SP_EVENT_EXIT,			/* the last thread of tgid exited */
	SP_EVENT_RETRY,			/* the walker met a mapping marked SP_UNWIND_RETRY */
};
struct sp_exec_event {
	__u32	tgid;
	__u32	kind;			/* enum sp_event_kind */
};

/* ---- user stack unwinding (see "Unwinding" in docs/design.md) ---- */

/* How a row computes the CFA (x86-64). */
enum sp_cfa_type {
	SP_CFA_RSP = 0,		/* CFA = RSP + cfa_offset */
	SP_CFA_RBP,		/* CFA = RBP + cfa_offset */
	SP_CFA_PLT,		/* PLT stub: CFA = RSP + 8, + 8 more when (RIP & 15) >= 11 */
	SP_CFA_SIGNAL,		/* signal trampoline (__restore_rt): registers from the
				   rt_sigframe's ucontext at RSP */
	SP_CFA_END,		/* outermost frame (RA undefined, e.g. _start): stop here */
	SP_CFA_NONE,		/* no usable rule (gap, or an expression we do not
				   model): the walker falls back to frame pointers */
	/* Added by the CFI compiler, after the agreed six (so their values
	 * stay): GCC's stack realignment (DRAP, e.g. AVX code) keeps the CFA
	 * in memory below RBP and the caller's RBP at an RBP-relative slot,
	 * which SP_CFA_RBP cannot say.  A walker without this case treats it
	 * as SP_CFA_NONE. */
	SP_CFA_RBP_DEREF,	/* CFA = *(RBP + cfa_offset); caller's RBP =
				   *(RBP + rbp_offset), 0 included */
};

/* unwind_mode: how user stacks are taken. */
enum sp_unwind_mode {
	SP_UNWIND_AUTO = 0,	/* tables where they exist, else frame pointers per frame */
	SP_UNWIND_FP,		/* the kernel's frame-pointer walk only */
};

/* Why a walk stopped (sp_user_stack.end). */
enum sp_unwind_end {
	SP_END_COMPLETE = 0,	/* an SP_CFA_END row, or a zero return address */
	SP_END_DEPTH,		/* SP_MAX_STACK_DEPTH frames */
	SP_END_READ,		/* user memory unreadable */
	SP_END_NORULE,		/* no row and no usable frame pointer */
	SP_END_FP,		/* the kernel's frame-pointer walk (fp mode, no tables) */
};

/*
 * One row of a table, 12 bytes: the rule for the pcs from pc up to the
 * next row's pc.  pc is relative to the table's base (sp_unwind_table).
 * The return address is at CFA - 8; the caller's RSP is the CFA.
 */
struct sp_unwind_row {
	__u32	pc;
	__s32	cfa_offset;		/* CFA = RSP or RBP + cfa_offset */
	__s16	rbp_offset;		/* caller's RBP at CFA + rbp_offset; 0: unchanged */
	__u8	cfa_type;		/* enum sp_cfa_type */
	__u8	pad;
};

/* Rows live in one array of blocks shared by every table: row i is
 * block[i / SP_UNWIND_BLOCK_ROWS].row[i % SP_UNWIND_BLOCK_ROWS]. */
#define SP_UNWIND_BLOCK_ROWS	64
struct sp_unwind_block {
	struct sp_unwind_row row[SP_UNWIND_BLOCK_ROWS];
};

/* The walker's binary search covers this many rows of one table. */
#define SP_UNWIND_MAX_TABLE_ROWS	(1u << 24)

/* The table directory: table id -> its rows. */
struct sp_unwind_table {
	__u64	base;			/* vaddr that row pcs are relative to */
	__u32	first;			/* index of its first row in the row array */
	__u32	nrows;			/* 0: no table at this id */
};
#define SP_UNWIND_NO_TABLE	0xffffffffu
/* No table either, but user space may get one if asked again (the file
 * could not be opened, or its table was unloaded for room): the walker
 * uses frame pointers and asks (SP_EVENT_RETRY, rate-limited). */
#define SP_UNWIND_RETRY		0xfffffffeu

/* One executable mapping of a process: pcs in [start, start + len) are at
 * link-time vaddr pc - bias of table `table` (SP_UNWIND_NO_TABLE or
 * SP_UNWIND_RETRY: frame pointers).  24 bytes, so that a process fits one 4 KiB allocation. */
struct sp_unwind_mapping {
	__u64	start;
	__u64	bias;
	__u32	len;
	__u32	table;
};

/* A process's executable mappings, sorted by start, not overlapping.
 * 160 keeps the value (and its hash element) within 4 KiB; a process
 * with more keeps those with tables (see pmda/unwind/). */
#define SP_UNWIND_MAX_MAPPINGS	160
struct sp_unwind_proc {
	__u32	nmappings;
	__u32	pad;
	__u64	refresh_ns;		/* when the walker last asked for a refresh */
	struct sp_unwind_mapping mapping[SP_UNWIND_MAX_MAPPINGS];
};

/* ---- interpreter frames (see "Interpreter frames" in docs/design.md) ---- */

/*
 * A pcs[] entry with SP_INTERP_TAG set is no address (user addresses are
 * below 2^47) but one interpreter frame: its kind, an object that names
 * the function (CPython: the code object, whose address is 8-aligned and
 * kept >> 3) and an index within it (CPython: the code unit the frame is
 * at, saturated at SP_INTERP_INDEX_MAX).
 */
#define SP_INTERP_TAG		(1ULL << 63)
#define SP_INTERP_KIND_SHIFT	60		/* 3 bits: enum sp_interp_kind */
#define SP_INTERP_INDEX_SHIFT	44		/* 16 bits */
#define SP_INTERP_INDEX_MAX	0xffffULL
#define SP_INTERP_OBJ_MASK	((1ULL << 44) - 1)	/* object address >> 3 */
enum sp_interp_kind {
	SP_INTERP_PYTHON = 1,
};

/*
 * One CPython process as user space checked it (keyed by tgid): where its
 * eval loop is, how a thread finds its thread state, and the offsets of
 * the fields the walk reads (pmda/symbolizer/sym_python_offsets.c).  A
 * native frame whose pc is in [eval_start, eval_end) is replaced by the
 * thread's Python frames from the current one to the last of that call
 * of the eval loop, which entry_kind tells.
 */
enum sp_py_entry {
	SP_PY_ENTRY_EACH = 0,		/* 3.9, 3.10: one frame per call */
	SP_PY_ENTRY_FLAG,		/* 3.11: the byte at frame_entry is set on a call's first */
	SP_PY_ENTRY_SHIM,		/* 3.12+: a frame whose byte at frame_entry (owner) is
					 * shim_owner is the call's C-stack shim, not recorded */
};
enum sp_py_instr {
	SP_PY_INSTR_PTR = 0,		/* a code-unit pointer into code + code_instr0 */
	SP_PY_INSTR_LASTI_BYTES,	/* 3.9: int f_lasti, a byte offset */
	SP_PY_INSTR_LASTI_UNITS,	/* 3.10: int f_lasti, in code units */
};
/* bytes of a frame the walk reads: each field it uses lies within them
 * (3.9's PyFrameObject to f_lasti; a _PyInterpreterFrame to localsplus) */
#define SP_PY_FRAME_READ	112
#define SP_PY_NO_CFRAME		0xffff	/* cframe_current: tstate_cframe is the frame itself */
struct sp_python_proc {
	__u64	eval_start, eval_end;	/* _PyEval_EvalFrameDefault, runtime addresses */
	__u64	interp;			/* a thread state of this process points here */
	__s64	tstate_tls;		/* the thread's thread state is at fs base + this */
	__u16	tstate_interp;		/* PyThreadState.interp */
	__u16	tstate_cframe;		/* PyThreadState.cframe (3.11, 3.12), else the frame */
	__u16	cframe_current;		/* _PyCFrame.current_frame, or SP_PY_NO_CFRAME */
	__u16	frame_code;		/* the frame's code object (f_code, f_executable) */
	__u16	frame_previous;		/* .previous (f_back) */
	__u16	frame_instr;		/* .prev_instr, .instr_ptr or .f_lasti */
	__u16	frame_entry;		/* .is_entry or .owner (a byte) */
	__u16	code_instr0;		/* PyCodeObject.co_code_adaptive: code unit 0 */
	__u8	entry_kind;		/* enum sp_py_entry */
	__u8	instr_kind;		/* enum sp_py_instr */
	__u8	shim_owner;		/* FRAME_OWNED_BY_CSTACK */
	__u8	pad[5];
};

#endif /* STACKPROF_H */
