/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offcpu.bpf.h - the off-CPU profile: where threads wait, and how long.
 * Included once by stackprof.bpf.c, after user_stack.bpf.h.
 *
 * offcpu_switch (tp_btf/sched_switch; offcpu_switch_raw, the raw
 * tracepoint, where tp_btf cannot load) runs at every context switch, as
 * prev, the task leaving the CPU:
 *  - prev going to sleep (TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE, not
 *    preempted), if selected: its kernel stack and its user stack (the
 *    walker, from the user registers it saved entering the kernel) are
 *    copied into its pending record, then the time.
 *  - next, if it has a pending record: its interval is over.  Shorter than
 *    offcpu_min_us, it is only counted as such; else both stacks go into
 *    this generation's off-CPU stack maps and the microseconds are added to
 *    their count, under a key shaped like an on-CPU sample's.
 * Stacks are taken at switch-out because only then can they be trusted (at
 * switch-in the address space mapped is prev's, not next's, and
 * bpf_get_task_stack(next) came back without its innermost frames for a
 * share of intervals: see docs/design.md), and stored at switch-in because
 * a sleep may outlast any number of drains: a stack stored at switch-out
 * would be in a generation drained and emptied since.
 * design: "Off-CPU and page faults" in docs/design.md.
 *
 * The includer provides: selected(), stat_inc(), stat_add(), count_key(),
 * READ_ONCE(), generation, PF_KTHREAD and the walker (user_stack.bpf.h).
 */
#ifndef OFFCPU_BPF_H
#define OFFCPU_BPF_H

#define TASK_INTERRUPTIBLE	0x1
#define TASK_UNINTERRUPTIBLE	0x2
#define ENOSPC			28

/* Set by user space. */
__u32 offcpu_min_us;		/* shorter intervals are dropped (counted) */
__u64 offcpu_epoch_ns;		/* when the program was attached: a sleep that
				   began before was not seen whole */

/* A sleeping thread: what it was doing when it left the CPU. */
struct offcpu_pending {
	__u64	start_ns;		/* 0: no sleep pending */
	__u32	tgid;
	__u32	pad;
	char	comm[SP_COMM_LEN];
	char	pcomm[SP_COMM_LEN];
	struct walk kernel;		/* stack.pcs and nframes (hash: at switch-in) */
	struct walk user;		/* stack.nframes 0: none */
};

/* tid -> its record, kept while the thread lives (exit_notify deletes it). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);			/* sized at load */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct offcpu_pending);
} offcpu_pending SEC(".maps");

/* Never written: the zeroes a thread's first record is made of. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_pending);
} offcpu_blank SEC(".maps");

#define OFFCPU_COUNT_MAP(name) struct { \
	__uint(type, BPF_MAP_TYPE_HASH); \
	__uint(max_entries, 1);			/* sized at load */ \
	__uint(map_flags, BPF_F_NO_PREALLOC); \
	__type(key, struct sp_stack_key); \
	__type(value, __u64);			/* microseconds */ \
} name SEC(".maps")

/*
 * Kernel stacks and user stacks, keyed by the hash of their pcs
 * (user_stack.bpf.h), in maps of their own: a wake allocates at most one
 * element of each map.  An as-used map's elements come from a per-CPU
 * cache (the kernel's bpf_mem_alloc) that starts with one element for
 * elements this large and is refilled from irq_work, which cannot run
 * inside sched_switch: with both stacks in one map, the second store of a
 * wake on a CPU whose cache held one element failed (-ENOMEM), and the
 * interval was counted without its user stack.
 */
#define OFFCPU_STACK_MAP(name) struct { \
	__uint(type, BPF_MAP_TYPE_HASH); \
	__uint(max_entries, 1);			/* sized at load */ \
	__uint(map_flags, BPF_F_NO_PREALLOC); \
	__type(key, __u64); \
	__type(value, struct sp_user_stack); \
} name SEC(".maps")

OFFCPU_COUNT_MAP(offcpu_counts0);
OFFCPU_COUNT_MAP(offcpu_counts1);
OFFCPU_STACK_MAP(offcpu_kstacks0);
OFFCPU_STACK_MAP(offcpu_kstacks1);
OFFCPU_STACK_MAP(offcpu_ustacks0);
OFFCPU_STACK_MAP(offcpu_ustacks1);

static __always_inline struct offcpu_pending *
pending_of(__u32 tid)
{
	struct offcpu_pending *p = bpf_map_lookup_elem(&offcpu_pending, &tid);
	__u32 zero = 0;

	if (p)
		return p;
	p = bpf_map_lookup_elem(&offcpu_blank, &zero);
	if (!p || bpf_map_update_elem(&offcpu_pending, &tid, p, BPF_NOEXIST))
		return NULL;
	return bpf_map_lookup_elem(&offcpu_pending, &tid);
}

/* prev (the current task) leaves the CPU in state prev_state. */
static __always_inline void
offcpu_sleep(void *ctx, __u32 prev_state, bool preempt)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, tgid = pid_tgid >> 32;
	struct offcpu_pending *p;
	long bytes;

	if (tid == 0 || preempt || !(prev_state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)))
		return;
	if (!selected(tgid)) {
		stat_inc(SP_STAT_OFFCPU_FILTERED);
		return;
	}
	p = pending_of(tid);
	if (!p) {
		stat_inc(SP_STAT_OFFCPU_MAP_FULL);
		return;
	}
	/* from our own tracing frames on: user space trims them (their number
	 * depends on how many programs sched_switch runs) */
	bytes = bpf_get_stack(ctx, p->kernel.stack.pcs, sizeof(p->kernel.stack.pcs), 0);
	p->kernel.stack.nframes = bytes > 0 ? bytes / sizeof(__u64) : 0;
	if ((task->flags & PF_KTHREAD) || !walk_user_stack(ctx, NULL, task, tgid, &p->user))
		p->user.stack.nframes = 0;
	p->tgid = tgid;
	__builtin_memcpy(p->comm, task->comm, sizeof(p->comm));
	__builtin_memcpy(p->pcomm, task->group_leader->comm, sizeof(p->pcomm));
	p->start_ns = bpf_ktime_get_ns();
}

/* The kernel stack's key in the off-CPU kernel stack map, or -errno. */
static __always_inline __s32
offcpu_kernel_key(void *stacks, struct walk *k)
{
	__u32 n = k->stack.nframes;
	__u64 key;

	if (n == 0)
		return -EFAULT;
	k->hash = 0;
	for (__u32 i = 0; i < SP_MAX_STACK_DEPTH && i < n; i++)
		k->hash = hash_step(k->hash, k->stack.pcs[i]);
	key = store_stack(stacks, k, SP_OFFCPU_KSTACK_MASK);
	return key == SP_USTACK_LOST ? -ENOSPC : (__s32)key;
}

/* Thread tid gets the CPU: count the interval it was blocked. */
static __always_inline void
offcpu_wake(__u32 tid)
{
	struct offcpu_pending *p;
	struct sp_stack_key key;
	__u64 start, us;
	void *kstacks, *ustacks;
	int gen;

	if (tid == 0 || !(p = bpf_map_lookup_elem(&offcpu_pending, &tid)))
		return;
	start = p->start_ns;
	if (start == 0)
		return;
	p->start_ns = 0;
	if (start < READ_ONCE(offcpu_epoch_ns))
		return;
	us = (bpf_ktime_get_ns() - start) / 1000;
	if (us < READ_ONCE(offcpu_min_us)) {
		stat_inc(SP_STAT_OFFCPU_SHORT);
		stat_add(SP_STAT_OFFCPU_SHORT_USEC, us);
		return;
	}
	if (!selected(p->tgid)) {		/* the selection changed meanwhile */
		stat_inc(SP_STAT_OFFCPU_FILTERED);
		return;
	}
	gen = READ_ONCE(generation) & 1;
	kstacks = gen ? (void *)&offcpu_kstacks1 : (void *)&offcpu_kstacks0;
	ustacks = gen ? (void *)&offcpu_ustacks1 : (void *)&offcpu_ustacks0;
	__builtin_memset(&key, 0, sizeof(key));
	key.tgid = p->tgid;
	key.tid = tid;
	key.kernel_stack_id = offcpu_kernel_key(kstacks, &p->kernel);
	key.user_stack = p->user.stack.nframes ? store_stack(ustacks, &p->user, ~0ULL)
					       : SP_USTACK_NONE;
	__builtin_memcpy(key.comm, p->comm, sizeof(key.comm));
	__builtin_memcpy(key.pcomm, p->pcomm, sizeof(key.pcomm));
	if (count_key(gen ? (void *)&offcpu_counts1 : (void *)&offcpu_counts0, &key, us,
		      SP_STAT_OFFCPU_MAP_FULL)) {
		stat_inc(SP_STAT_OFFCPU_INTERVALS);
		stat_add(SP_STAT_OFFCPU_USEC, us);
	}
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	(void)prev;
	stat_inc(SP_STAT_SWITCHES);
	offcpu_sleep(ctx, prev_state, preempt);
	offcpu_wake(next->pid);
	return 0;
}

/* The same from the raw tracepoint: args are preempt, prev, next, prev_state. */
SEC("raw_tp/sched_switch")
int offcpu_switch_raw(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *next = (struct task_struct *)ctx->args[2];

	stat_inc(SP_STAT_SWITCHES);
	offcpu_sleep(ctx, (__u32)ctx->args[3], ctx->args[0] != 0);
	offcpu_wake(BPF_CORE_READ(next, pid));
	return 0;
}

/* A thread exits: its record goes (a no-op for threads that never slept). */
static __always_inline void
offcpu_forget(__u32 tid)
{
	bpf_map_delete_elem(&offcpu_pending, &tid);
}

#endif /* OFFCPU_BPF_H */
