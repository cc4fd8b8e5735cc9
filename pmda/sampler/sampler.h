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
};

/* Cumulative counters, summed over CPUs (enum sp_stat order) plus BPF run time. */
struct sampler_stats {
	uint64_t	stat[SP_STAT_NR];
	uint64_t	bpf_run_time_ns;	/* 0 unless kernel.bpf_stats_enabled */
	uint64_t	bpf_run_count;
	uint64_t	drains;
};

/* One aggregated stack of a drained generation.  ips are innermost first,
 * as the kernel records them; nkernel/nuser are 0 when the stack id was
 * negative (a user-mode sample has no kernel stack, a kernel thread no
 * user stack) or the stack was lost.  Valid only during the callback. */
struct sampled_stack {
	const struct sp_stack_key *key;
	uint64_t	count;
	const uint64_t	*kernel_ips;
	int		nkernel;
	const uint64_t	*user_ips;
	int		nuser;
};

typedef void (*sampler_stack_fn)(void *arg, const struct sampled_stack *stack);

/* Load the BPF object and attach to every online CPU.  Returns 0 or -errno
 * (-EINVAL: zero frequency or interval, slots not 1..SP_HEATMAP_MAX_SLOTS). */
int sampler_open(struct sampler **sp, const struct sampler_config *config);
void sampler_close(struct sampler *s);

/* Attach (true) or detach every perf event; detached costs nothing. */
int sampler_set_enabled(struct sampler *s, bool enabled);
/* Re-open the perf events at a new rate; on error the old rate stays. */
int sampler_set_frequency(struct sampler *s, unsigned frequency_hz);
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
 * Switch the BPF program to the other generation, then hand every stack of
 * the retired generation to fn and empty it.  No sample is lost in between:
 * the counts handed out sum to the rise of SP_STAT_SAMPLES minus what
 * SP_STAT_MAP_FULL counted.
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
 */
int sampler_exec_fd(struct sampler *s);
int sampler_poll_execs(struct sampler *s, void (*fn)(void *arg, pid_t tgid), void *arg);

#endif /* SAMPLER_H */
