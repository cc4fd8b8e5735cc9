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
 * One aggregation key: samples with equal keys are summed in the kernel.
 * Stack ids index the stack-trace map of the same generation; a negative id
 * is the -errno bpf_get_stackid() returned (e.g. -EEXIST on a collision,
 * -EFAULT when there is no user stack) and is counted in sp_stat.
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
	SP_STAT_NR
};

#endif /* STACKPROF_H */
