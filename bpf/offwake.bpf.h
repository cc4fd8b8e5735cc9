/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offwake.bpf.h - the off-wake profile: who woke a blocked thread (BCC's
 * offwaketime).  Included once by offcpu.bpf.h, before offcpu_count_block().
 *
 *  - offwake_waking (tp_btf/sched_waking, in the waker's context): the
 *    woken thread p, if its task storage holds a sleep (off-CPU's
 *    switch-out wrote it) already at least offcpu_min_us long, gets the
 *    waker's kernel stack and, outside interrupts, its user stack (the
 *    shared walker) in a record of its own, and `woken` in its storage.
 *    A shorter sleep costs a task storage lookup and a comparison: the
 *    threshold comes before any stack, as for off-CPU.
 *  - off-CPU counts the block (offcpu_count_block): with `woken`, the same
 *    microseconds go to the off-wake count map too, under the blocked
 *    key and the waker's stacks, stored then (so in the generation of the
 *    count, as off-CPU's), and the record goes.  A block not counted
 *    drops its record at switch-in (offwake_drop).
 * A block counted without a waker (woken before the threshold, but over
 * it by the time it ran; a short block the draw kept) is counted in
 * offwake_no_waker only: the profile holds only blocks whose waker it
 * knows.  Attached only while stackprof.control.offwake and offcpu are 1,
 * tp_btf only.
 *
 * The includer provides: offcpu_tasks, offcpu_epoch_ns, offcpu_min_us,
 * offcpu_kernel_key(), OFFCPU_COUNT_MAP(), OFFCPU_STACK_MAP(), stat_inc(), stat_add(),
 * count_key(), walk_user_stack(), READ_ONCE(), generation, PF_KTHREAD.
 */
#ifndef OFFWAKE_BPF_H
#define OFFWAKE_BPF_H

/* Set by user space. */
__u32 offwake_on;		/* the waking program is attached (for the stats) */
__u64 offwake_irq_lo, offwake_irq_hi;	/* interrupt entry text (0: unknown) */

/* The waker of a sleeping thread, taken at the wake. */
struct offwake_waker {
	__u32	tgid;
	__u32	pad;
	char	comm[SP_COMM_LEN];
	struct walk kernel;		/* stack.pcs and nframes (hash: at the count) */
	struct walk user;		/* stack.nframes 0: none */
};

/* woken tid -> its waker (counted or dropped at its switch-in). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);			/* sized at load */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct offwake_waker);
} offwake_wakers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offwake_waker);
} offwake_blank SEC(".maps");

/* The waker's stacks in maps of their own: a count stores at most one
 * element in each stack map (see OFFCPU_STACK_MAP). */
OFFCPU_COUNT_MAP(offwake_counts0, struct sp_wake_key);
OFFCPU_COUNT_MAP(offwake_counts1, struct sp_wake_key);
OFFCPU_STACK_MAP(offwake_kstacks0);
OFFCPU_STACK_MAP(offwake_kstacks1);
OFFCPU_STACK_MAP(offwake_ustacks0);
OFFCPU_STACK_MAP(offwake_ustacks1);

/* The key being counted (too large for the BPF stack beside the rest). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sp_wake_key);
} offwake_key SEC(".maps");

/*
 * Not in an interrupt, so the current task's user registers are the
 * waker's: no return address of the wake's kernel stack k is in the
 * interrupt entry code (asm_common_interrupt, asm_sysvec_*: user space
 * finds the range; exceptions such as page faults, in task context, come
 * before it).  Rejected: the preempt count (its per-CPU variable is not in
 * kallsyms without CONFIG_KALLSYMS_ALL, so a ksym fails to load) and this
 * program's stack being off the task's (6.13+ runs large tracing programs
 * on a private stack).
 */
static __always_inline bool
offwake_in_task(const struct walk *k)
{
	__u64 lo = READ_ONCE(offwake_irq_lo), hi = READ_ONCE(offwake_irq_hi);

	for (__u32 i = 0; i < SP_MAX_STACK_DEPTH && i < k->stack.nframes; i++)
		if (k->stack.pcs[i] >= lo && k->stack.pcs[i] < hi)
			return false;
	return true;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(offwake_waking, struct task_struct *p)
{
	struct task_struct *cur;
	struct offwake_waker *w;
	struct offcpu_task *t;
	__u32 tid = p->pid, zero = 0;
	__u64 start;
	long bytes;

	t = bpf_task_storage_get(&offcpu_tasks, p, 0, 0);
	if (!t || !(start = t->start_ns) || t->woken || start < READ_ONCE(offcpu_epoch_ns))
		return 0;
	if (bpf_ktime_get_ns() - start < (__u64)READ_ONCE(offcpu_min_us) * 1000)
		return 0;
	w = bpf_map_lookup_elem(&offwake_wakers, &tid);
	if (!w) {
		w = bpf_map_lookup_elem(&offwake_blank, &zero);
		if (!w || bpf_map_update_elem(&offwake_wakers, &tid, w, BPF_NOEXIST) ||
		    !(w = bpf_map_lookup_elem(&offwake_wakers, &tid))) {
			stat_inc(SP_STAT_OFFWAKE_MAP_FULL);
			return 0;
		}
	}
	cur = bpf_get_current_task_btf();
	/* from our own tracing frames on: user space trims them to
	 * try_to_wake_up */
	bytes = bpf_get_stack(ctx, w->kernel.stack.pcs, sizeof(w->kernel.stack.pcs), 0);
	w->kernel.stack.nframes = bytes > 0 ? bytes / sizeof(__u64) : 0;
	if (cur->pid == 0 || (cur->flags & PF_KTHREAD) || !offwake_in_task(&w->kernel) ||
	    !walk_user_stack(ctx, NULL, cur, cur->tgid, &w->user))
		w->user.stack.nframes = 0;
	w->tgid = cur->tgid;
	__builtin_memcpy(w->comm, cur->comm, sizeof(w->comm));
	t->woken = 1;
	stat_inc(SP_STAT_OFFWAKE_WAKERS);
	return 0;
}

/* tid's block is not counted: its waker goes. */
static __always_inline void
offwake_drop(struct offcpu_task *t, __u32 tid)
{
	t->woken = 0;
	bpf_map_delete_elem(&offwake_wakers, &tid);
}

#define OFFWAKE_GEN(gen, name)	((gen) ? (void *)&name##1 : (void *)&name##0)

/* tid's block, counted off-CPU under blocked in generation gen for us
 * microseconds, counted again under its waker (woken: it has one). */
static __always_inline void
offwake_count(struct sp_stack_key *blocked, __u32 tid, int gen, __u64 us, bool woken)
{
	struct offwake_waker *w;
	struct sp_wake_key *key;
	__u32 zero = 0;

	if (!woken) {
		if (READ_ONCE(offwake_on))
			stat_inc(SP_STAT_OFFWAKE_NO_WAKER);
		return;
	}
	w = bpf_map_lookup_elem(&offwake_wakers, &tid);
	key = bpf_map_lookup_elem(&offwake_key, &zero);
	if (!w || !key) {
		stat_inc(SP_STAT_OFFWAKE_NO_WAKER);
		return;
	}
	__builtin_memcpy(&key->blocked, blocked, sizeof(key->blocked));
	key->waker_tgid = w->tgid;
	key->waker_kernel_stack_id = offcpu_kernel_key(OFFWAKE_GEN(gen, offwake_kstacks), &w->kernel);
	key->waker_user_stack = w->user.stack.nframes ?
		store_stack(OFFWAKE_GEN(gen, offwake_ustacks), &w->user, ~0ULL) : SP_USTACK_NONE;
	__builtin_memcpy(key->waker_comm, w->comm, sizeof(key->waker_comm));
	if (count_key(OFFWAKE_GEN(gen, offwake_counts), key, us, SP_STAT_OFFWAKE_MAP_FULL)) {
		stat_inc(SP_STAT_OFFWAKE_INTERVALS);
		stat_add(SP_STAT_OFFWAKE_USEC, us);
	}
	bpf_map_delete_elem(&offwake_wakers, &tid);
}

#endif /* OFFWAKE_BPF_H */
