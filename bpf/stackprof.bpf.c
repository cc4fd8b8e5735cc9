// SPDX-License-Identifier: GPL-2.0
/*
 * stackprof.bpf.c - the stack samplers of pmdastackprof.
 *
 * sample()       perf_event program on a CPU_CLOCK event of every online CPU:
 *                filter, take the kernel stack id and the user stack
 *                (user_stack.bpf.h: unwind tables or frame pointers), count
 *                the sample under its sp_stack_key in the current
 *                generation's hash, count its wall-clock slice in the heat map.
 * pagefault_sample()  the same on a PAGE_FAULTS software event of every
 *                online CPU, one sample per pagefault_period faults, counted
 *                as that many faults in the page-fault count maps.
 * offcpu_switch()  sched_switch: the off-CPU profile (offcpu.bpf.h).
 * offwake_waking()  sched_waking: the off-wake profile's wakers (offwake.bpf.h).
 * exec_notify()  sched_process_exec raw tracepoint (raw: needs no tracefs):
 *                pushes the tgid of every exec into a ring buffer so the
 *                PMDA can read the new process's maps (and re-evaluate its
 *                process filter) early.
 * exit_notify()  sched_process_exit raw tracepoint: when the last thread of
 *                a process with unwind mappings exits, drops them and tells
 *                the PMDA through the same ring buffer.
 *
 * Generations: user space drains generation g while this program writes
 * generation g^1.  The program reads `generation` once and adds nothing to
 * know when it is done with g: user space flips `generation`, then waits
 * for every BPF program running at that moment to finish by updating the
 * `fence` map-in-map (see "BPF sampler" in docs/design.md).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "stackprof.h"

#define EFAULT		14
#define EEXIST		17
#define PF_KTHREAD	0x00200000
#define NSEC_PER_SEC	1000000000ULL

char LICENSE[] SEC("license") = "GPL";

/* Fixed at load time by user space. */
const volatile bool have_tai = false;	/* bpf_ktime_get_tai_ns() exists */

/* Run-time state, written by user space through the mmap'ed .bss. */
__u32 generation;		/* generation the programs write (0 or 1) */
__u32 filter_enabled;		/* 1: only tgids in tgid_filter are sampled */
__u32 heatmap_slots;		/* slices of a second; 0 stops the heat map */
__u64 realtime_offset_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, without TAI */
__u32 pagefault_period;		/* faults per page-fault sample, as the events say */

#define COUNT_MAP(name) struct { \
	__uint(type, BPF_MAP_TYPE_HASH); \
	__uint(max_entries, 1024);		/* resized at load */ \
	__type(key, struct sp_stack_key); \
	__type(value, __u64); \
} name SEC(".maps")

#define STACK_MAP(name) struct { \
	__uint(type, BPF_MAP_TYPE_STACK_TRACE); \
	__uint(max_entries, 1024);		/* resized at load */ \
	__uint(key_size, sizeof(__u32)); \
	__uint(value_size, SP_MAX_STACK_DEPTH * sizeof(__u64)); \
} name SEC(".maps")

COUNT_MAP(counts0);
COUNT_MAP(counts1);
COUNT_MAP(pf_counts0);			/* page faults: estimated faults */
COUNT_MAP(pf_counts1);
STACK_MAP(stacks0);
STACK_MAP(stacks1);
STACK_MAP(overflow0);
STACK_MAP(overflow1);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} tgid_filter SEC(".maps");

/*
 * Read by no program.  Updating a map-in-map from user space returns only
 * after every non-sleepable BPF program then running has finished (the
 * kernel's promise that programs no longer use an old inner map), so user
 * space updates it to wait for samples still writing an old generation.
 */
struct fence_target {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} fence_target SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct fence_target);
} fence SEC(".maps") = {
	.values = { [0] = &fence_target },
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sp_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sp_heatmap);
} heatmap SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} execs SEC(".maps");

#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))

static __always_inline void
stat_inc(enum sp_stat which)
{
	__u32 zero = 0;
	struct sp_stats *s = bpf_map_lookup_elem(&stats, &zero);

	if (s)
		s->stat[which]++;
}

static __always_inline void
stat_add(enum sp_stat which, __u64 n)
{
	__u32 zero = 0;
	struct sp_stats *s = bpf_map_lookup_elem(&stats, &zero);

	if (s)
		s->stat[which] += n;
}

static __always_inline bool
selected(__u32 tgid)
{
	return !READ_ONCE(filter_enabled) || bpf_map_lookup_elem(&tgid_filter, &tgid);
}

/* Stack id in the main map, else (bucket taken) in the overflow map. */
static __always_inline long
stack_id(void *ctx, void *main, void *overflow, __u64 flags)
{
	long id = bpf_get_stackid(ctx, main, flags);

	if (id == -EEXIST) {
		id = bpf_get_stackid(ctx, overflow, flags);
		if (id >= 0)
			id |= SP_STACK_OVERFLOW;
	}
	return id;
}

/* Only a sample taken in kernel mode has a kernel stack; kernel addresses
 * are the top half on x86-64 and arm64, so a negative ip is kernel mode.
 * Not asking for a user-mode sample's (empty) kernel stack saves a helper
 * call on most samples of a CPU-bound process. */
static __always_inline __s32
kernel_stack(struct bpf_perf_event_data *ctx, void *main, void *overflow)
{
	long id;

	if ((long)PT_REGS_IP(&ctx->regs) >= 0)
		return -EFAULT;
	id = stack_id(ctx, main, overflow, 0);
	if (id == -EEXIST)
		stat_inc(SP_STAT_KSTACK_COLLISION);
	else if (id < 0)
		stat_inc(SP_STAT_KSTACK_MISSING);
	return id;
}

#include "user_stack.bpf.h"

/* Add amount to key's count; false (counted in full_stat) if the map is full. */
static __always_inline bool
count_key(void *counts, void *key, __u64 amount, enum sp_stat full_stat)
{
	__u64 *value;
	long err;

	value = bpf_map_lookup_elem(counts, key);
	if (value) {
		__sync_fetch_and_add(value, amount);
		return true;
	}
	err = bpf_map_update_elem(counts, key, &amount, BPF_NOEXIST);
	if (err == -EEXIST) {		/* inserted meanwhile on another CPU */
		value = bpf_map_lookup_elem(counts, key);
		if (value) {
			__sync_fetch_and_add(value, amount);
			return true;
		}
	}
	if (err)
		stat_inc(full_stat);	/* -E2BIG or -ENOMEM */
	return !err;
}

/* sp_stack_key.start: tells a reused tgid's processes apart. */
static __always_inline __u32
process_start(struct task_struct *task)
{
	return task->group_leader->start_boottime / (NSEC_PER_SEC / 100);
}

#include "offcpu.bpf.h"

/*
 * Names are read straight from the task (BTF pointer loads, no helper
 * calls): every helper call and cold cache line shows in the per-sample
 * cost.  comm is NUL-padded by the kernel, so equal names are equal keys.
 */
static __always_inline void
count_stack(struct bpf_perf_event_data *ctx, __u64 pid_tgid, int gen, void *counts,
	    __u64 amount, enum sp_stat full_stat)
{
	struct task_struct *task = bpf_get_current_task_btf();
	void *stacks = gen ? (void *)&stacks1 : (void *)&stacks0;
	void *overflow = gen ? (void *)&overflow1 : (void *)&overflow0;
	struct sp_stack_key key;

	__builtin_memset(&key, 0, sizeof(key));
	key.tgid = pid_tgid >> 32;
	key.tid = (__u32)pid_tgid;
	key.kernel_stack_id = kernel_stack(ctx, stacks, overflow);
	key.user_stack = take_user_stack(ctx, (struct pt_regs *)&ctx->regs, task, key.tgid, gen);
	key.start = process_start(task);
	__builtin_memcpy(key.comm, task->comm, sizeof(key.comm));
	if (key.tid == key.tgid)	/* the leader: its own name */
		__builtin_memcpy(key.pcomm, key.comm, sizeof(key.pcomm));
	else
		__builtin_memcpy(key.pcomm, task->group_leader->comm, sizeof(key.pcomm));
	count_key(counts, &key, amount, full_stat);
}

/* Wall-clock nanoseconds modulo one second.  TAI and UTC differ by whole
 * seconds, so TAI's subsecond offset is UTC's. */
static __always_inline __u64
subsecond_ns(void)
{
	__u64 now;

	if (have_tai)
		now = bpf_ktime_get_tai_ns();
	else
		now = bpf_ktime_get_ns() + READ_ONCE(realtime_offset_ns);
	return now % NSEC_PER_SEC;
}

static __always_inline void
count_heatmap(void)
{
	__u32 zero = 0, slots = READ_ONCE(heatmap_slots);
	struct sp_heatmap *h;
	__u64 slot;

	if (slots == 0 || slots > SP_HEATMAP_MAX_SLOTS)
		return;
	slot = subsecond_ns() * slots / NSEC_PER_SEC;
	asm volatile("" : "+r"(slot));	/* keep the bound check on this register */
	if (slot >= SP_HEATMAP_MAX_SLOTS)
		return;
	h = bpf_map_lookup_elem(&heatmap, &zero);
	if (h)
		h->slot[slot]++;
}

SEC("perf_event")
int sample(struct bpf_perf_event_data *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	int gen;

	if ((__u32)pid_tgid == 0) {
		stat_inc(SP_STAT_IDLE);
		return 0;
	}
	if (!selected(pid_tgid >> 32)) {
		stat_inc(SP_STAT_FILTERED);
		return 0;
	}
	stat_inc(SP_STAT_SAMPLES);
	gen = READ_ONCE(generation) & 1;
	count_stack(ctx, pid_tgid, gen, gen ? (void *)&counts1 : (void *)&counts0, 1,
		    SP_STAT_MAP_FULL);
	count_heatmap();
	return 0;
}

SEC("perf_event")
int pagefault_sample(struct bpf_perf_event_data *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	int gen;

	if ((__u32)pid_tgid == 0)
		return 0;
	if (!selected(pid_tgid >> 32)) {
		stat_inc(SP_STAT_PAGEFAULT_FILTERED);
		return 0;
	}
	stat_inc(SP_STAT_PAGEFAULT_SAMPLES);
	gen = READ_ONCE(generation) & 1;
	count_stack(ctx, pid_tgid, gen, gen ? (void *)&pf_counts1 : (void *)&pf_counts0,
		    READ_ONCE(pagefault_period), SP_STAT_PAGEFAULT_MAP_FULL);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int exec_notify(struct bpf_raw_tracepoint_args *ctx)
{
	struct sp_exec_event *e;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	/* the old image's interpreter record must not read the new one */
	bpf_map_delete_elem(&python_procs, &tgid);
	stat_inc(SP_STAT_EXECS);
	e = bpf_ringbuf_reserve(&execs, sizeof(*e), 0);
	if (!e) {
		stat_inc(SP_STAT_EXEC_LOST);
		return 0;
	}
	e->tgid = tgid;
	e->kind = SP_EVENT_EXEC;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int exit_notify(struct bpf_raw_tracepoint_args *ctx)
{
	(void)ctx;
	offcpu_forget((__u32)bpf_get_current_pid_tgid());
	forget_process(bpf_get_current_task_btf());
	return 0;
}
