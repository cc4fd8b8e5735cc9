/*
 * sampler.h - load, attach, reconfigure and drain the BPF stack sampler.
 *
 * The only part of the PMDA that knows about libbpf and the skeleton.
 * Everything it hands out uses the types of bpf/stackprof.h.  Functions
 * return 0 (or a count) or -errno, never exit, and are for one thread.
 * How it works: "BPF sampler" in docs/design.md.
 */
#ifndef SAMPLER_H
#define SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "stackprof.h"

struct sampler;

struct sampler_config {
	unsigned	frequency_hz;	/* per-CPU sampling rate */
	unsigned	interval_ms;	/* drain interval: sizes the maps */
	unsigned	heatmap_slots;	/* slices of a wall-clock second */
	/* unwind table capacity, fixed at open (0: the defaults below) */
	unsigned	unwind_rows;	/* rows of all tables together */
	unsigned	unwind_tables;	/* tables loaded at once */
	unsigned	unwind_processes; /* processes with mapping arrays */
};

#define SAMPLER_UNWIND_ROWS		(1u << 20)	/* 12 MiB of rows */
#define SAMPLER_UNWIND_TABLES		4096
#define SAMPLER_UNWIND_PROCESSES	4096		/* 4 KiB each, when used */

/* Off-CPU and page-fault defaults (see docs/design.md "Off-CPU and page faults"). */
#define SAMPLER_OFFCPU_MIN_US		1000	/* longer blocks are all counted */
#define SAMPLER_OFFCPU_SAMPLE		0	/* 1 in N shorter ones, weighted N; 0: none */
#define SAMPLER_PAGEFAULT_PERIOD	100	/* one sample per 100 faults */

/* Cumulative counters, summed over CPUs (enum sp_stat order) plus BPF run
 * time (0 unless kernel.bpf_stats_enabled) of each program. */
struct sampler_stats {
	uint64_t	stat[SP_STAT_NR];
	uint64_t	bpf_run_time_ns;	/* on-CPU: sample() */
	uint64_t	bpf_run_count;
	uint64_t	offcpu_run_time_ns;	/* the sched_switch, sys_exit and sched_waking programs */
	uint64_t	offcpu_run_count;
	uint64_t	pagefault_run_time_ns;	/* pagefault_sample() */
	uint64_t	pagefault_run_count;
	uint64_t	drains;
};

/* BPF run time and runs of every program of the object together (0
 * unless kernel.bpf_stats_enabled): what profiling costs the host. */
void sampler_bpf_total(struct sampler *s, uint64_t *ns, uint64_t *runs);

/* What a drained stack's count counts. */
enum sampler_profile {
	SAMPLER_ONCPU = 0,		/* samples */
	SAMPLER_OFFCPU,			/* microseconds blocked */
	SAMPLER_PAGEFAULT,		/* estimated faults: samples x period */
	SAMPLER_OFFWAKE,		/* microseconds blocked, by blocked and waker stacks */
	SAMPLER_PROFILES
};

/* One aggregated stack of a drained generation.  ips are innermost first,
 * as the kernel records them; nkernel/nuser are 0 when there is no such
 * stack (a user-mode sample has no kernel stack, a kernel thread no user
 * stack) or it was lost (counted).  Valid only during the callback. */
struct sampled_stack {
	enum sampler_profile profile;
	const struct sp_stack_key *key;
	uint64_t	count;
	const uint64_t	*kernel_ips;
	int		nkernel;
	const uint64_t	*user_ips;
	int		nuser;
	enum sp_unwind_end user_end;	/* why the user stack's walk stopped */
	/* SAMPLER_OFFWAKE: who woke it (key is wake->blocked); else NULL, 0 */
	const struct sp_wake_key *wake;
	const uint64_t	*waker_kernel_ips;	/* innermost (try_to_wake_up) first */
	int		nwaker_kernel;
	const uint64_t	*waker_user_ips;
	int		nwaker_user;
};

typedef void (*sampler_stack_fn)(void *arg, const struct sampled_stack *stack);

/* Load the BPF object and attach to every online CPU.  Returns 0 or -errno
 * (-EINVAL: zero frequency or interval, slots not 1..SP_HEATMAP_MAX_SLOTS). */
int sampler_open(struct sampler **sp, const struct sampler_config *config);
void sampler_close(struct sampler *s);

/* Attach (true) or detach every perf event and tracepoint of every
 * profile switched on; detached costs nothing. */
int sampler_set_enabled(struct sampler *s, bool enabled);

/*
 * Off-CPU profile: off at open.  On (and enabled), every context switch
 * runs the sched_switch program: a thread that goes to sleep has its
 * stacks taken, and when it runs again the microseconds it was blocked,
 * if at least min_us, are counted under them (SAMPLER_OFFCPU stacks).
 * A sleep that began before the program was attached is not counted.
 * Off, nothing runs and the sleepers' records are freed.
 */
int sampler_set_offcpu(struct sampler *s, bool on);
/* Any value; 0 keeps every interval.  Takes effect for intervals ending
 * after it returns. */
int sampler_set_offcpu_min_us(struct sampler *s, unsigned min_us);
/* 1 in one_in of the blocks shorter than min_us is kept, its microseconds
 * weighted one_in (totals stay unbiased); 0 keeps none.  tp_btf only. */
int sampler_set_offcpu_sample(struct sampler *s, unsigned one_in);
/* Off-wake profile: off at open.  On, while the off-CPU profile is on,
 * a wake of a thread blocked at least min_us takes the waker's stacks,
 * and the block is counted again under both (SAMPLER_OFFWAKE stacks).
 * -EOPNOTSUPP under the raw tracepoint. */
int sampler_set_offwake(struct sampler *s, bool on);
/* A counted block is stored when its thread goes back to user space after
 * the switch (tp_btf/rseq_update), by default; on, at its syscall exit
 * (tp_btf/sys_exit, which every syscall pays for): the earlier design, for
 * bench/offcpu.  Only while the profile is detached (else -EBUSY). */
int sampler_offcpu_by_sys_exit(struct sampler *s, bool on);
/* true when sched_switch is the raw tracepoint (tp_btf refused to load, or
 * STACKPROF_SAMPLER_NO_TP_BTF was set at open). */
bool sampler_offcpu_raw_tp(struct sampler *s);

/*
 * Page-fault profile: off at open.  On (and enabled), a PAGE_FAULTS
 * software event per online CPU samples one fault in `period`, counted
 * as `period` faults (SAMPLER_PAGEFAULT stacks).  A new period (> 0, else
 * -EINVAL) re-opens the events; a refused one leaves the old.
 */
int sampler_set_pagefault(struct sampler *s, bool on);
int sampler_set_pagefault_period(struct sampler *s, unsigned period);
/* Re-open the perf events at a new rate; on error the old rate stays. */
int sampler_set_frequency(struct sampler *s, unsigned frequency_hz);
/* The CPU clock's period at frequency_hz (> 0), in ns: 10^9 / frequency_hz
 * and 1/10000 of it more.  The kernel's own period for a frequency,
 * 10^9 / frequency_hz, is locked to the wall-clock second, and at 99 Hz
 * and 50 heat-map slots the one slot a second that gets one sample where
 * the others get two was the same slot every second: a cold row in every
 * heat map.  This phase moves about 100 us a second, the cold slot with
 * it; the rate is 0.01% under frequency_hz. */
uint64_t sampler_clock_period_ns(unsigned frequency_hz);
/* Select processes: all == true samples every process (tgids ignored);
 * all == false samples exactly tgids[0..npids-1] (none if npids == 0).
 * When it returns, every later sample sees the new selection.
 * -EINVAL for a tgid <= 0, -E2BIG beyond 8192 tgids; state unchanged. */
int sampler_set_filter(struct sampler *s, bool all, const pid_t *tgids, size_t npids);
/* Change heat map slices (1..SP_HEATMAP_MAX_SLOTS, else -EINVAL); resets
 * the heat map counters to zero. */
int sampler_set_heatmap_slots(struct sampler *s, unsigned slots);

/*
 * Apply rate, interval and heat map slices together.  The maps are sized
 * at open from CPUs x rate x interval; when the new values need other
 * sizes, a new BPF object takes over, sharing the filter, the cumulative
 * counters, the heat map and the exec queue (sampler_exec_fd stays valid),
 * and every stack the old object still held is handed to fn first, as a
 * drain would.  Otherwise only the rate and slices change.  A refused rate
 * leaves everything as it was.  Call it (not set_frequency alone) when the
 * rate or interval grows, or the maps may fill (SP_STAT_MAP_FULL).
 */
int sampler_reconfigure(struct sampler *s, const struct sampler_config *config,
			sampler_stack_fn fn, void *arg);

/*
 * Switch the BPF programs to the other generation, then hand every stack
 * of the retired generation, of every profile, to fn and empty it.  No
 * sample is lost in between: the on-CPU counts handed out sum to the rise
 * of SP_STAT_SAMPLES, the off-CPU ones to that of SP_STAT_OFFCPU_USEC, the
 * page-fault ones to period x SP_STAT_PAGEFAULT_SAMPLES (less what the
 * *_MAP_FULL counters counted).
 */
int sampler_drain(struct sampler *s, sampler_stack_fn fn, void *arg);

int sampler_read_stats(struct sampler *s, struct sampler_stats *stats);
/* Cumulative per-slot counts, summed over CPUs; slots[0..n-1]. */
int sampler_read_heatmap(struct sampler *s, uint64_t *slots, unsigned n);
/* The same per CPU: rows[cpu * n + i] for cpu < min(ncpus, possible CPUs);
 * returns how many CPU rows it filled.  sampler_possible_cpus() sizes it. */
int sampler_read_heatmap_cpus(struct sampler *s, uint64_t *rows, unsigned n, unsigned ncpus);
int sampler_possible_cpus(struct sampler *s);

/*
 * Exec notification: every exec on the host (whatever the filter, since a
 * new program may now match the process regex) queues its tgid.  The fd is
 * readable (poll/select/epoll) when tgids are queued; sampler_poll_execs
 * hands each to fn without blocking and returns how many, or -errno.
 * The queue holds a few thousand execs; overflow is SP_STAT_EXEC_LOST.
 * The same queue carries the walker's requests (enum sp_event_kind):
 * sampler_poll_events hands each event to fn with its kind;
 * sampler_poll_execs drops all but execs.
 */
int sampler_exec_fd(struct sampler *s);
int sampler_poll_execs(struct sampler *s, void (*fn)(void *arg, pid_t tgid), void *arg);
int sampler_poll_events(struct sampler *s,
			void (*fn)(void *arg, enum sp_event_kind kind, pid_t tgid), void *arg);

/*
 * Unwinding (docs/design.md "Unwinding").  User space loads tables of rows
 * (struct sp_unwind_row, bpf/stackprof.h) and gives each process its
 * sorted executable mappings, naming tables by id; the walker uses them
 * under SP_UNWIND_AUTO and frame pointers wherever they say nothing.
 * Tables, rows and mapping arrays survive sampler_reconfigure.
 */
/* SP_UNWIND_AUTO or SP_UNWIND_FP (else -EINVAL); takes effect for every
 * sample after it returns. */
int sampler_set_unwind_mode(struct sampler *s, enum sp_unwind_mode mode);
/* Copy nrows rows (sorted by pc, pc relative to base) into the kernel.
 * Returns the table's id (>= 0); -ENOSPC when no free range of rows or no
 * table id is left (nothing loaded); -EINVAL for 0 rows or rows out of
 * order; -E2BIG beyond SP_UNWIND_MAX_TABLE_ROWS. */
int sampler_unwind_table_add(struct sampler *s, uint64_t base,
			     const struct sp_unwind_row *rows, uint32_t nrows);
/* Unload table id (-ENOENT if not loaded).  Processes should not name it
 * any more (the walker then uses frame pointers); its rows and id are
 * reused only once every program running now has finished. */
int sampler_unwind_table_remove(struct sampler *s, uint32_t id);
/* Give tgid's executable mappings to the walker, replacing any earlier:
 * n <= SP_UNWIND_MAX_MAPPINGS (else -E2BIG), sorted by start and
 * disjoint, each naming a loaded table, SP_UNWIND_NO_TABLE or
 * SP_UNWIND_RETRY (else -EINVAL); -ENOSPC when the process map is full.  State unchanged on
 * error.  The kernel drops a process's entry when it exits
 * (SP_EVENT_EXIT). */
int sampler_unwind_set_process(struct sampler *s, pid_t tgid,
			       const struct sp_unwind_mapping *maps, uint32_t n);
/* 0, or -ENOENT when tgid has no entry. */
int sampler_unwind_remove_process(struct sampler *s, pid_t tgid);

/*
 * Interpreter frames (bpf/python.bpf.h).  Give tgid's CPython record to
 * the walker, replacing any earlier (-EINVAL: an empty eval-loop range;
 * -E2BIG/-ENOMEM: the map is full); the kernel drops it at exec and exit.
 */
int sampler_python_set(struct sampler *s, pid_t tgid, const struct sp_python_proc *rec);
/* 0, or -ENOENT when tgid has no record. */
int sampler_python_remove(struct sampler *s, pid_t tgid);
/* Python frames for every sample after it returns, or none. */
int sampler_set_interpreters(struct sampler *s, bool on);

struct sampler_unwind_usage {
	uint32_t	rows, rows_capacity;	/* rows held by loaded tables */
	uint32_t	tables, tables_capacity;
	uint64_t	table_bytes;		/* kernel memory of rows + directory */
};
void sampler_unwind_usage(struct sampler *s, struct sampler_unwind_usage *u);

/* The sampler's stats (sampler_stats.c). */
struct stat_table;
extern const struct stat_table sampler_stat_table;

#endif /* SAMPLER_H */
