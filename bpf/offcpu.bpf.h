/* SPDX-License-Identifier: GPL-2.0 */
/*
 * offcpu.bpf.h - the off-CPU profile: where threads wait, and how long.
 * Included once by stackprof.bpf.c, after user_stack.bpf.h.
 *
 * tp_btf (the design whose cost does not grow with the stacks):
 *  - offcpu_switch (tp_btf/sched_switch, as prev): prev going to sleep
 *    (TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE, not preempted) and
 *    selected gets the time in its task storage: no stack.  next, if its
 *    storage holds a time, is at the end of a block; a block shorter than
 *    offcpu_min_us is counted as such, unless 1 in offcpu_sample of them
 *    is drawn, weighted offcpu_sample (unbiased totals).  A block kept has
 *    its kernel stack taken from the sleeping next (bpf_get_task_stack:
 *    its stack still holds the blocking path) into a pending record with
 *    the microseconds and next's user registers.
 *  - offcpu_rseq_update (tp_btf/rseq_update: on the woken thread's way
 *    back to user space after a switch, in its own address space; where
 *    the kernel lacks it, offcpu_sys_exit, tp_btf/sys_exit): a thread with
 *    a pending record whose user registers are still the block's walks
 *    its user stack (the shared walker), and stores both stacks and the
 *    count, in the generation current then.  A thread without rseq, or
 *    one that never goes back to user space first, is flushed at its next
 *    switch-out, with its user stack if the registers still match, else
 *    without; a kernel thread's at once.
 * raw_tp (where tp_btf does not load: no task storage, no
 * bpf_get_task_stack): offcpu_switch_raw takes both stacks at every
 * selected switch-out into the pending record and counts at switch-in.
 *
 * Who woke a block counted: offwake.bpf.h.
 *
 * Stacks are stored and counted by one program run, so a sleep that
 * outlasts any number of drains is counted whole in the generation of its
 * end.  design: "Off-CPU and page faults" in docs/design.md.
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
__u32 offcpu_sample;		/* 1 in this many of those is kept, weighted
				   as many (0: none) */
__u64 offcpu_epoch_ns;		/* when the program was attached: a sleep that
				   began before was not seen whole */
__u64 offcpu_sched_lo, offcpu_sched_hi;	/* __schedule's text */
__u64 offcpu_sched_text[4];	/* __sched_text_start/end, __lock_text_start/end
				   (0: unknown) */
/* Pending records: rseq_update (sys_exit) looks no further while there are none. */
__s64 offcpu_npending;

/* A thread's state, in its task storage (tp_btf). */
struct offcpu_task {
	__u64	start_ns;		/* its sleep began; 0: none */
	__u32	tgid;
	__u16	pending;		/* it has a pending record */
	__u16	woken;			/* its waker is in offwake_wakers (offwake.bpf.h) */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_task);
} offcpu_tasks SEC(".maps");

/*
 * A block being stacked (tp_btf: from its end until its count), or (raw_tp)
 * a sleeping thread: what it was doing when it left the CPU.
 */
struct offcpu_pending {
	__u64	start_ns;		/* raw_tp: 0, no sleep pending */
	__u32	tgid;
	__u32	start;			/* raw_tp: sp_stack_key.start */
	__u64	us;			/* tp_btf: the block, weighted */
	__u64	ip, sp;			/* tp_btf: its user registers */
	char	comm[SP_COMM_LEN];
	char	pcomm[SP_COMM_LEN];
	struct walk kernel;		/* stack.pcs and nframes (hash: at the count) */
	struct walk user;		/* raw_tp: stack.nframes 0: none; tp_btf: the
					   walk at the count (see offcpu_count_block) */
};

/* tid -> its record (exit_notify deletes it). */
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

#define OFFCPU_COUNT_MAP(name, key_type) struct { \
	__uint(type, BPF_MAP_TYPE_HASH); \
	__uint(max_entries, 1);			/* sized at load */ \
	__uint(map_flags, BPF_F_NO_PREALLOC); \
	__type(key, key_type); \
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

OFFCPU_COUNT_MAP(offcpu_counts0, struct sp_stack_key);
OFFCPU_COUNT_MAP(offcpu_counts1, struct sp_stack_key);
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
	p->start = process_start(task);
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

#define OFFCPU_USTACKS(gen)	((gen) ? (void *)&offcpu_ustacks1 : (void *)&offcpu_ustacks0)

/* A count key's start: p's process (started at start), thread tid, p's
 * kernel stack stored in generation gen. */
static __always_inline void
offcpu_key(struct sp_stack_key *key, struct offcpu_pending *p, __u32 start, __u32 tid, int gen)
{
	__builtin_memset(key, 0, sizeof(*key));
	key->tgid = p->tgid;
	key->tid = tid;
	key->start = start;
	key->kernel_stack_id = offcpu_kernel_key(gen ? (void *)&offcpu_kstacks1
						     : (void *)&offcpu_kstacks0, &p->kernel);
}

static __always_inline void
offcpu_count(struct sp_stack_key *key, int gen, __u64 us)
{
	if (count_key(gen ? (void *)&offcpu_counts1 : (void *)&offcpu_counts0, key, us,
		      SP_STAT_OFFCPU_MAP_FULL)) {
		stat_inc(SP_STAT_OFFCPU_INTERVALS);
		stat_add(SP_STAT_OFFCPU_USEC, us);
	}
}

/* Thread tid gets the CPU: count the interval it was blocked. */
static __always_inline void
offcpu_wake(__u32 tid)
{
	struct offcpu_pending *p;
	struct sp_stack_key key;
	__u64 start, us;
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
	offcpu_key(&key, p, p->start, tid, gen);
	key.user_stack = p->user.stack.nframes ? store_stack(OFFCPU_USTACKS(gen), &p->user, ~0ULL)
					       : SP_USTACK_NONE;
	__builtin_memcpy(key.comm, p->comm, sizeof(key.comm));
	__builtin_memcpy(key.pcomm, p->pcomm, sizeof(key.pcomm));
	offcpu_count(&key, gen, us);
}

/* ---- tp_btf ---- */

#define OFFCPU_SCAN_WORDS	128	/* of a sleeping thread's stack, from its saved sp */
#define OFFCPU_SCHED_MAX	8	/* scheduler and lock frames put back, at most */
#define OFFCPU_THREAD_SIZE	16384	/* the smallest kernel stack (x86-64) */

struct offcpu_scratch {
	__u64	words[OFFCPU_SCAN_WORDS];
	__u64	pcs[SP_MAX_STACK_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_scratch);
} offcpu_scratch SEC(".maps");

static __always_inline bool
in_sched_text(__u64 a)
{
	return (a >= offcpu_sched_text[0] && a < offcpu_sched_text[1]) ||
	       (a >= offcpu_sched_text[2] && a < offcpu_sched_text[3]);
}

struct offcpu_scan {
	struct offcpu_scratch	*sc;
	struct walk		*k;
	__u64			first;		/* the first frame given */
	__u32			words, found;
	bool			seen;		/* first was reached */
};

static long
scan_word(__u32 i, struct offcpu_scan *c)
{
	__u64 at = i, w;

	asm volatile("" : "+r"(at));	/* keep the bound check on this register */
	if (at >= OFFCPU_SCAN_WORDS || at >= c->words)
		return 1;
	w = c->sc->words[at];
	if (w == c->first) {
		c->seen = true;
		return 1;
	}
	if (c->found < OFFCPU_SCHED_MAX && in_sched_text(w))
		c->k->stack.pcs[c->found++ & (OFFCPU_SCHED_MAX - 1)] = w;
	return 0;
}

/*
 * The kernel stack of next, asleep, into k.  bpf_get_task_stack leaves out
 * the scheduler and lock functions (__schedule, schedule, do_nanosleep,
 * __mutex_lock...: the kernel's stack_trace_save_tsk does, as for
 * /proc/PID/stack), which are the most telling frames of a block.  They
 * are the return addresses in those ranges on next's stack, between the
 * sp it saved switching out and the first frame given: put back in front.
 * Found only if that frame is within the words read, else the stack is
 * kept as given (counted).
 */
static __always_inline void
offcpu_task_kstack(struct task_struct *next, struct walk *k)
{
	struct offcpu_scan c = { .k = k };
	__u64 sp, end, words;
	__u32 zero = 0, n, found;
	long bytes;

	k->stack.nframes = 0;
	c.sc = bpf_map_lookup_elem(&offcpu_scratch, &zero);
	if (!c.sc)
		return;
	bytes = bpf_get_task_stack(next, c.sc->pcs, sizeof(c.sc->pcs), 0);
	n = bytes > 0 ? bytes / sizeof(__u64) : 0;
	if (n == 0)
		return;
	c.first = c.sc->pcs[0];
	sp = next->thread.sp;
	if (bpf_probe_read_kernel(&end, sizeof(end), &next->stack))	/* a number, not a pointer */
		return;
	end += OFFCPU_THREAD_SIZE;
	words = sp < end ? (end - sp) / sizeof(__u64) : 0;
	if (words > OFFCPU_SCAN_WORDS)
		words = OFFCPU_SCAN_WORDS;
	c.words = words;
	if (words && READ_ONCE(offcpu_sched_text[1]) &&
	    bpf_probe_read_kernel(c.sc->words, words * sizeof(__u64), (void *)sp) == 0)
		bpf_loop(OFFCPU_SCAN_WORDS, scan_word, &c, 0);
	found = c.found;
	if (!c.seen) {
		found = 0;
		stat_inc(SP_STAT_OFFCPU_KSTACK_CUT);
	}
	if (found > OFFCPU_SCHED_MAX)
		found = OFFCPU_SCHED_MAX;
	if (n > SP_MAX_STACK_DEPTH - OFFCPU_SCHED_MAX)
		n = SP_MAX_STACK_DEPTH - OFFCPU_SCHED_MAX;
	bpf_probe_read_kernel(&k->stack.pcs[found],
			      (SP_MAX_STACK_DEPTH - OFFCPU_SCHED_MAX) * sizeof(__u64), c.sc->pcs);
	k->stack.nframes = found + n;
}

#include "offwake.bpf.h"

/* Store p's stacks and count its block, as the current task (tid); user
 * stack only if the user registers are still the block's; woken: and
 * under its waker.  The walk goes into p, the thread's own, not the
 * CPU's: a sample (perf_event, from an interrupt or NMI) can come in the
 * middle of it, and walks the same thread's stack into the CPU's walk;
 * sharing that, the two walks mixed (a stack with its root twice, or
 * Python frames after its root). */
static __always_inline void
offcpu_count_block(void *ctx, struct task_struct *task, __u32 tid, struct offcpu_pending *p,
		   bool woken)
{
	struct sp_stack_key key;
	struct pt_regs *regs;
	struct walk *w = &p->user;
	int gen;

	gen = READ_ONCE(generation) & 1;
	offcpu_key(&key, p, process_start(task), tid, gen);
	key.user_stack = SP_USTACK_NONE;
	if (!(task->flags & PF_KTHREAD)) {
		regs = (struct pt_regs *)bpf_task_pt_regs(task);
		if (!regs || regs->ip != p->ip || regs->sp != p->sp)
			stat_inc(SP_STAT_OFFCPU_NO_USER);
		else if (walk_user_stack(ctx, NULL, task, p->tgid, w))
			key.user_stack = store_stack(OFFCPU_USTACKS(gen), w, ~0ULL);
	}
	__builtin_memcpy(key.comm, task->comm, sizeof(key.comm));
	__builtin_memcpy(key.pcomm, task->group_leader->comm, sizeof(key.pcomm));
	offcpu_count(&key, gen, p->us);
	offwake_count(&key, tid, gen, p->us, woken);
}

/* The current task's pending block, counted now (from its syscall exit,
 * or its next switch-out). */
static __always_inline void
offcpu_flush(void *ctx, struct task_struct *task, struct offcpu_task *t)
{
	__u32 tid = task->pid;
	struct offcpu_pending *p;
	bool woken = t->woken;

	t->pending = 0;
	t->woken = 0;
	p = bpf_map_lookup_elem(&offcpu_pending, &tid);
	if (!p)				/* forgotten: switched off meanwhile */
		return;
	offcpu_count_block(ctx, task, tid, p, woken);
	bpf_map_delete_elem(&offcpu_pending, &tid);
	__sync_fetch_and_add(&offcpu_npending, -1);
}

/* next, whose sleep began at t->start_ns, gets the CPU at now.  The
 * short block, the common case, costs a division and two counts.  False
 * when the block is not counted. */
static __always_inline bool
offcpu_block_end(void *ctx, struct sp_stats *st, __u64 now, struct task_struct *next,
		 struct offcpu_task *t)
{
	__u64 start = t->start_ns, us, weight = 1;
	struct offcpu_pending *p;
	struct pt_regs *regs;
	__u32 tid = next->pid, n;

	t->start_ns = 0;
	if (start < READ_ONCE(offcpu_epoch_ns))
		return false;
	us = (now - start) / 1000;
	if (us < READ_ONCE(offcpu_min_us)) {
		n = READ_ONCE(offcpu_sample);
		if (n == 0 || bpf_get_prandom_u32() % n != 0) {
			st->stat[SP_STAT_OFFCPU_SHORT]++;
			st->stat[SP_STAT_OFFCPU_SHORT_USEC] += us;
			return false;
		}
		weight = n;
		st->stat[SP_STAT_OFFCPU_SAMPLED]++;
	}
	if (!selected(t->tgid)) {		/* the selection changed meanwhile */
		stat_inc(SP_STAT_OFFCPU_FILTERED);
		return false;
	}
	if (t->pending)			/* an earlier block's, not flushed */
		return false;
	p = pending_of(tid);
	if (!p) {
		stat_inc(SP_STAT_OFFCPU_MAP_FULL);
		return false;
	}
	offcpu_task_kstack(next, &p->kernel);
	p->tgid = t->tgid;
	p->us = us * weight;
	if (next->flags & PF_KTHREAD) {		/* no syscall exit to wait for */
		offcpu_count_block(ctx, next, tid, p, t->woken);
		t->woken = 0;
		bpf_map_delete_elem(&offcpu_pending, &tid);
		return true;
	}
	regs = (struct pt_regs *)bpf_task_pt_regs(next);
	p->ip = regs ? regs->ip : 0;
	p->sp = regs ? regs->sp : 0;
	t->pending = 1;
	__sync_fetch_and_add(&offcpu_npending, 1);
	return true;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct offcpu_task *t;
	struct sp_stats *st;
	__u32 zero = 0;
	__u64 now;

	st = bpf_map_lookup_elem(&stats, &zero);
	if (!st)
		return 0;
	st->stat[SP_STAT_SWITCHES]++;
	now = bpf_ktime_get_ns();
	if (prev->pid && !preempt && (prev_state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE))) {
		t = bpf_task_storage_get(&offcpu_tasks, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!t) {
			st->stat[SP_STAT_OFFCPU_MAP_FULL]++;
		} else if (!selected(prev->tgid)) {
			st->stat[SP_STAT_OFFCPU_FILTERED]++;
		} else {
			if (t->pending)
				offcpu_flush(ctx, prev, t);
			t->tgid = prev->tgid;
			t->start_ns = now;
		}
	}
	if (!next->pid)
		return 0;
	t = bpf_task_storage_get(&offcpu_tasks, next, 0, 0);
	if (t && t->start_ns && !offcpu_block_end(ctx, st, now, next, t) && t->woken)
		offwake_drop(t, next->pid);
	return 0;
}

/* The current task is back from a switch (rseq_update) or a syscall
 * (sys_exit): its pending block, if any, is counted. */
static __always_inline void
offcpu_resume(void *ctx)
{
	struct task_struct *task;
	struct offcpu_task *t;

	if (READ_ONCE(offcpu_npending) <= 0)
		return;
	task = bpf_get_current_task_btf();
	t = bpf_task_storage_get(&offcpu_tasks, task, 0, 0);
	if (t && t->pending)
		offcpu_flush(ctx, task, t);
}

/*
 * On its way back to user space after a switch, in its own context with
 * the block's user registers: the kernel raises TIF_NOTIFY_RESUME at every
 * switch-out of a task with rseq registered (glibc 2.35+ registers it),
 * and its handler fires this.  It runs once per switch of such tasks;
 * sys_exit runs at every syscall of every task, and attaching it sends
 * every syscall through the slow path (bench/offcpu: empty tp_btf/sys_exit
 * vs empty tp_btf/rseq_update).  A task without rseq has its block
 * flushed at its next switch-out instead (offcpu_switch).
 */
SEC("tp_btf/rseq_update")
int BPF_PROG(offcpu_rseq_update, struct task_struct *t)
{
	(void)t;
	offcpu_resume(ctx);
	return 0;
}

/* Where the kernel has no rseq_update tracepoint (and for the bench). */
SEC("tp_btf/sys_exit")
int BPF_PROG(offcpu_sys_exit, struct pt_regs *regs, long ret)
{
	(void)regs;
	(void)ret;
	offcpu_resume(ctx);
	return 0;
}

/* ---- raw_tp ---- */

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
	if (bpf_map_delete_elem(&offcpu_pending, &tid) == 0)	/* raw_tp: rseq_update is not attached */
		__sync_fetch_and_add(&offcpu_npending, -1);
	bpf_map_delete_elem(&offwake_wakers, &tid);
}

#endif /* OFFCPU_BPF_H */
