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
 * Stack ids index the stack-trace maps of the same generation; a negative id
 * is the -errno bpf_get_stackid() returned (e.g. -EEXIST on a collision in
 * both maps, -EFAULT when there is no stack: a user-mode sample has no
 * kernel stack, a kernel thread no user stack) and is counted in sp_stat
 * unless it is such a legitimately empty stack.
 */
struct sp_stack_key {
	__u32	tgid;			/* process id */
	__u32	tid;			/* thread id */
	__s32	kernel_stack_id;
	__s32	user_stack_id;
	char	comm[SP_COMM_LEN];	/* thread name */
	char	pcomm[SP_COMM_LEN];	/* process (group leader) name */
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
	SP_STAT_EXEC_LOST,		/* exec events lost: ring buffer full */
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

/* One exec notification in the ring buffer. */
struct sp_exec_event {
	__u32	tgid;
	__u32	pad;
};

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

#endif /* STACKPROF_H */
