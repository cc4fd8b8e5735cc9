/*
 * sampler_priv.h - state shared by the sampler's own files: sampler.c
 * (load, on/off, rate, exec queue), sampler_cpus.c (perf events per CPU),
 * sampler_drain.c (generations, draining), sampler_ustack.c (user stacks
 * of a drained generation), sampler_resize.c (moving to resized maps),
 * sampler_filter.c (tgid filter), sampler_counters.c (statistics, heat
 * map), sampler_unwind.c (unwind tables and mapping arrays),
 * sampler_offcpu.c (the sched_switch program), sampler_pagefault.c
 * (page-fault events).  The quiescence fence has its own header
 * (fence_priv.h).  Nothing outside pmda/sampler/ includes it.
 */
#ifndef SAMPLER_PRIV_H
#define SAMPLER_PRIV_H

#include "sampler.h"
#include "lib/hash.h"

struct stackprof_bpf;
struct bpf_link;
struct ring_buffer;
struct bpf_program;
struct perf_event_attr;

/* User stacks of one retired generation, by key (sampler_ustack.c). */
struct ustack_cache {
	struct hash_table index;	/* hash_mix(key) -> slot in stacks */
	struct sp_user_stack *stacks;	/* [cap], used of them */
	size_t		used, cap;
	uint64_t	*batch_keys;	/* buffers of one batch read */
	struct sp_user_stack *batch_vals;
};

/* A range of blocks of the kernel's row array (sampler_unwind.c). */
struct row_range {
	uint32_t	first, count;	/* in blocks */
};

/* What sampler_unwind.c knows of the kernel's tables. */
struct unwind_state {
	uint32_t	nblocks, ntables;	/* capacities */
	struct row_range *free;		/* sorted, coalesced */
	uint32_t	nfree;
	size_t		freecap;
	struct row_range *of_table;	/* [ntables]; count 0 = id free */
	uint32_t	*retired;	/* ids to free after the next quiescence */
	uint32_t	nretired;
	uint64_t	retired_epoch;	/* the fence's epoch at the last retirement */
	uint32_t	tables, rows;	/* loaded now */
};

/* Stacks read from one retired generation, each read once per drain. */
struct stack_cache {
	int32_t		*slot_of_id[2];	/* [main|overflow][id] -> slot or -1 */
	uint32_t	nids[2];	/* max_entries of main, overflow */
	uint64_t	(*ips)[SP_MAX_STACK_DEPTH];
	int		*depth;
	uint32_t	*id_of_slot;	/* stack id (with SP_STACK_OVERFLOW) */
	uint32_t	used;
	size_t		cap;		/* of ips, depth and id_of_slot alike */
};

/* One perf event per online CPU, each running one program. */
struct cpu_events {
	struct bpf_link		**links;	/* [ncpus], NULL where offline; NULL: none */
	char			online[256];	/* online CPU list when they were opened */
};

struct sampler {
	struct stackprof_bpf	*skel;
	struct sampler_config	cfg;
	bool			enabled;
	int			ncpus;		/* possible CPUs */
	struct cpu_events	clock;		/* on-CPU: CPU_CLOCK events */
	struct cpu_events	faults;		/* page faults: PAGE_FAULTS events */
	int			online_fd;	/* /sys/devices/system/cpu/online or -1 */
	struct bpf_link		*exec_link, *exit_link;
	struct ring_buffer	*execs;
	void			(*exec_fn)(void *, pid_t);
	void			*exec_arg;

	/* drain */
	uint32_t		count_entries;	/* max_entries of each count map */
	struct sp_stack_key	*keys;		/* [count_entries] */
	uint64_t		*values;	/* [count_entries] */
	bool			no_batch;	/* kernel refused batch ops */
	bool			no_stack_take;	/* ... lookup-and-delete on stack maps */
	struct stack_cache	cache;
	uint64_t		drains;
	void			*percpu;	/* one per-CPU map value, [ncpus] */
	uint64_t		lost_stacks[2];	/* id in key but not in map: k, u */
	struct ustack_cache	ustacks;
	struct ustack_cache	offstacks;	/* off-CPU user stacks */
	struct ustack_cache	offkstacks;	/* off-CPU kernel stacks */
	struct ustack_cache	wakeustacks;	/* off-wake: the wakers' user stacks */
	struct ustack_cache	wakekstacks;	/* and kernel stacks */
	struct sp_wake_key	*wake_keys;	/* [count_entries]: off-wake keys drained */
	struct unwind_state	unwind;
	void			(*event_fn)(void *, enum sp_event_kind, pid_t);
	uint64_t		quiescent_epoch;	/* sampler_fence.c's waits */

	/* off-CPU and page faults (sampler_offcpu.c, sampler_pagefault.c) */
	bool			offcpu_on, pagefault_on;
	bool			raw_tp;		/* sched_switch by raw tracepoint */
	bool			have_rseq;	/* tp_btf/rseq_update loaded */
	bool			by_sys_exit;	/* counted at sys_exit, not rseq_update */
	struct bpf_link		*offcpu_link, *offcpu_exit_link;
	bool			offwake_on;
	struct bpf_link		*offwake_link;	/* sched_waking: off-wake and off-CPU on */
	uint64_t		wake_lo, wake_hi;	/* try_to_wake_up's text */
	uint64_t		irq_lo, irq_hi;		/* interrupt entry text */
	uint64_t		sched_lo, sched_hi;	/* __schedule's text */
	uint64_t		sched_text[4];		/* __sched_text_*, __lock_text_* */
	unsigned		offcpu_min_us, offcpu_sample;
	unsigned		pagefault_period;
};

/* sampler.c */
struct map_sizes {
	uint32_t	counts, stacks, overflow;	/* max_entries per generation */
	uint32_t	ustacks;
	uint32_t	pf_counts;			/* page faults */
	uint32_t	offcpu_counts, offcpu_stacks;	/* off-CPU, allocated as used */
	uint32_t	offcpu_pending;			/* sleeping threads, as used */
};
struct map_sizes sampler_map_sizes(int ncpus, const struct sampler_config *c);
int sampler_valid_config(const struct sampler_config *c);
int sampler_load_object(struct sampler *s, const struct stackprof_bpf *share);

/* sampler_cpus.c: the on-CPU events, and what any per-CPU event set needs */
int sampler_cpus_attach(struct sampler *s, unsigned frequency_hz);
void sampler_cpus_detach(struct sampler *s);
int sampler_cpus_probe(struct sampler *s, unsigned frequency_hz);
int sampler_cpus_refresh(struct sampler *s);
/* Open attr on every online CPU and run prog on each, replacing ev's
 * events; the new ones are opened before the old are closed (where a bad
 * attr fails, changing nothing).  -ENODEV when no CPU is online. */
int cpu_events_attach(struct sampler *s, struct cpu_events *ev,
		      const struct perf_event_attr *attr, struct bpf_program *prog);
void cpu_events_detach(struct sampler *s, struct cpu_events *ev);
/* Would attr open?  (on the first online CPU) */
int cpu_events_probe(struct sampler *s, const struct perf_event_attr *attr);
/* Has the online CPU list changed since ev was opened? */
bool cpu_events_stale(struct sampler *s, const struct cpu_events *ev);

/* sampler_offcpu.c */
int sampler_offcpu_attach(struct sampler *s);
void sampler_offcpu_detach(struct sampler *s);
/* Before load: choose tp_btf or the raw tracepoint (raw: tp_btf refused). */
void sampler_offcpu_choose(struct sampler *s, bool raw);
/* How many innermost frames of an off-CPU kernel stack are our tracing:
 * those before __schedule, looking at OFFCPU_TRIM_MAX at most. */
#define OFFCPU_TRIM_MAX	8
int sampler_offcpu_trim(const struct sampler *s, const uint64_t *ips, int n);
/* The same for a waker's kernel stack: those before try_to_wake_up. */
int sampler_offwake_trim(const struct sampler *s, const uint64_t *ips, int n);
/* __schedule's text range, read at open: /proc/kallsyms shows addresses
 * only to those who open it with CAP_SYSLOG, which the PMDA drops. */
void sampler_offcpu_find_schedule(struct sampler *s);

/* sampler_pagefault.c */
int sampler_pagefault_attach(struct sampler *s);
void sampler_pagefault_detach(struct sampler *s);
int sampler_pagefault_refresh(struct sampler *s);

/* sampler_drain.c */
int sampler_cache_init(struct stack_cache *c, uint32_t nmain, uint32_t noverflow);
void sampler_cache_free(struct stack_cache *c);
void sampler_refresh_clock(struct sampler *s);
int sampler_drain_generation(struct sampler *s, int gen, sampler_stack_fn fn, void *arg);

/* sampler_ustack.c */
int sampler_ustacks_init(struct ustack_cache *c);
void sampler_ustacks_free(struct ustack_cache *c);
/* Take every stack out of map (keyed by hash, as the user stack maps and
 * the off-CPU stack maps are) into the cache. */
int sampler_ustacks_read(struct sampler *s, struct ustack_cache *c, struct bpf_map *map);
/* The stored stack under key, or NULL. */
const struct sp_user_stack *sampler_ustacks_find(const struct ustack_cache *c, uint64_t key);
void sampler_ustacks_reset(struct ustack_cache *c);

/* sampler_unwind.c */
/* Size the unwind maps of a new object from s->cfg (before load). */
int sampler_unwind_size(struct sampler *s);
/* The allocator for the unwind maps of s's first object (after load). */
int sampler_unwind_init(struct sampler *s);
void sampler_unwind_free(struct unwind_state *u);

#endif /* SAMPLER_PRIV_H */
