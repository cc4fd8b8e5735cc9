// SPDX-License-Identifier: GPL-2.0
/*
 * peer.bpf.c - the peers bench/offcpu measures stackprof against, in one
 * object, written for this bench:
 *
 * peer_switch   the method of libbpf-tools' offcputime (not packaged
 *               here, and bpftrace cannot attach to sched_switch on this
 *               kernel): at every switch-out, whatever the state (its
 *               default), kernel and user stack ids (bpf_get_stackid: the
 *               kernel's frame-pointer walk for user stacks) and the time
 *               into a start map, the key into a count map; at switch-in
 *               the microseconds added there.  Not generation-safe, not
 *               unwinding: the floor of the method, not a rival design.
 * peer_fault    on a PAGE_FAULTS event: kernel and user stack ids and a
 *               hash count, as bpftrace's
 *               `software:page-faults:N { @[kstack, ustack, comm] = count(); }`.
 * empty_*       programs that do nothing, on the hooks off-CPU uses or could
 *               use: what attaching there costs before any work (the
 *               trampoline, and for sys_exit the syscall slow path every
 *               task then takes).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#define PF_KTHREAD	0x00200000

char LICENSE[] SEC("license") = "GPL";

struct stack_key {
	__u32	pid, tgid;
	__s32	kstack, ustack;
};

struct started {
	__u64		ns;
	struct stack_key key;
};

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 127 * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct started);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct stack_key);
	__type(value, __u64);
} totals SEC(".maps");

static __always_inline void
add(struct stack_key *key, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&totals, key);

	if (v)
		__sync_fetch_and_add(v, n);
	else
		bpf_map_update_elem(&totals, key, &n, BPF_NOEXIST);
}

static __always_inline void
take_ids(void *ctx, struct task_struct *t, struct stack_key *key)
{
	key->pid = t->pid;
	key->tgid = t->tgid;
	key->kstack = bpf_get_stackid(ctx, &stacks, 0);
	key->ustack = (t->flags & PF_KTHREAD) ? -1 : bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(peer_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct started s, *sp;
	__u32 pid;
	__u64 zero = 0;

	(void)preempt;
	take_ids(ctx, prev, &s.key);
	s.ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&starts, &s.key.pid, &s, BPF_ANY);
	bpf_map_update_elem(&totals, &s.key, &zero, BPF_NOEXIST);
	pid = next->pid;
	sp = bpf_map_lookup_elem(&starts, &pid);
	if (!sp)
		return 0;
	add(&sp->key, (bpf_ktime_get_ns() - sp->ns) / 1000);
	bpf_map_delete_elem(&starts, &pid);
	return 0;
}

SEC("perf_event")
int peer_fault(struct bpf_perf_event_data *ctx)
{
	struct stack_key key;

	take_ids(ctx, bpf_get_current_task_btf(), &key);
	add(&key, 1);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(empty_switch) { return 0; }

SEC("tp_btf/sys_exit")
int BPF_PROG(empty_sys_exit) { return 0; }

SEC("tp_btf/rseq_update")
int BPF_PROG(empty_rseq_update) { return 0; }
