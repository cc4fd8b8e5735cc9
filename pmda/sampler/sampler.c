/*
 * sampler.c - load the BPF sampler, size its maps, switch it on and off,
 * change its rate, and hand out exec notifications.  Per-CPU events live
 * in sampler_cpus.c, draining in sampler_drain.c, resizing in
 * sampler_resize.c, the process filter in sampler_filter.c, counters and
 * heat map in sampler_counters.c, the off-CPU and page-fault profiles in
 * sampler_offcpu.c and sampler_pagefault.c.
 * Every function returns 0 (or a count) or -errno and never exits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "sampler_priv.h"
#include "stackprof.skel.h"

#define COUNT_MIN		1024
#define COUNT_MAX		262144
#define STACKS_MIN		2048
#define STACKS_MAX		32768
#define OVERFLOW_MIN		512
#define PF_COUNTS		4096	/* distinct faulting stacks per generation */
#define OFFCPU_COUNTS		8192	/* distinct sleeping stacks per generation */
#define OFFCPU_STACKS		8192	/* their kernel stacks, and as many user stacks */
#define OFFCPU_SLEEPERS		16384	/* threads with a record (2 KiB each) */

static uint32_t
clamp_u32(uint64_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (uint32_t)v;
}

static uint32_t
pow2_at_least(uint64_t v)
{
	uint32_t p = 1;

	while (p < v && p < (1u << 30))
		p <<= 1;
	return p;
}

/*
 * A generation holds at most one key per sample of an interval, so twice
 * CPUs x rate x interval keeps the count map from filling even when a drain
 * runs late; each key has at most one user stack.  Kernel stack maps hash
 * into power-of-two buckets and refuse a second stack in a taken bucket; 4
 * buckets per possible stack plus the overflow map keep such losses rare
 * (see docs/design.md).  Off-CPU and page-fault maps do not grow with
 * the rate: they hold what threads sleep in or fault from in an interval,
 * and the off-CPU ones allocate only what is used.
 */
struct map_sizes
sampler_map_sizes(int ncpus, const struct sampler_config *c)
{
	uint64_t per_interval = ((uint64_t)ncpus * c->frequency_hz * c->interval_ms + 999) / 1000;
	struct map_sizes z;

	z.counts = clamp_u32(2 * per_interval, COUNT_MIN, COUNT_MAX);
	z.stacks = pow2_at_least(clamp_u32(4 * per_interval, STACKS_MIN, STACKS_MAX));
	z.overflow = clamp_u32(z.stacks / 4, OVERFLOW_MIN, STACKS_MAX);
	z.ustacks = clamp_u32(2 * per_interval, COUNT_MIN, STACKS_MAX);
	z.pf_counts = PF_COUNTS;
	z.offcpu_counts = OFFCPU_COUNTS;
	z.offcpu_stacks = OFFCPU_STACKS;
	z.offcpu_pending = OFFCPU_SLEEPERS;
	return z;
}

static int
size_maps(struct sampler *s, bool shared)
{
	struct stackprof_bpf *k = s->skel;
	struct map_sizes z = sampler_map_sizes(s->ncpus, &s->cfg);
	struct bpf_map *count_maps[] = { k->maps.counts0, k->maps.counts1 };
	struct bpf_map *stack_maps[] = { k->maps.stacks0, k->maps.stacks1 };
	struct bpf_map *overflow_maps[] = { k->maps.overflow0, k->maps.overflow1 };
	struct bpf_map *ustack_maps[] = { k->maps.ustacks0, k->maps.ustacks1 };
	struct bpf_map *pf_maps[] = { k->maps.pf_counts0, k->maps.pf_counts1 };
	struct bpf_map *off_counts[] = { k->maps.offcpu_counts0, k->maps.offcpu_counts1 };
	struct bpf_map *off_kstacks[] = { k->maps.offcpu_kstacks0, k->maps.offcpu_kstacks1 };
	struct bpf_map *off_ustacks[] = { k->maps.offcpu_ustacks0, k->maps.offcpu_ustacks1 };
	struct bpf_map *wake_counts[] = { k->maps.offwake_counts0, k->maps.offwake_counts1 };
	struct bpf_map *wake_kstacks[] = { k->maps.offwake_kstacks0, k->maps.offwake_kstacks1 };
	struct bpf_map *wake_ustacks[] = { k->maps.offwake_ustacks0, k->maps.offwake_ustacks1 };
	int err = bpf_map__set_max_entries(k->maps.offcpu_pending, z.offcpu_pending);

	if (!err)
		err = bpf_map__set_max_entries(k->maps.offwake_wakers, z.offcpu_pending);

	for (int g = 0; g < SP_GENERATIONS && !err; g++) {
		err = bpf_map__set_max_entries(count_maps[g], z.counts);
		if (!err)
			err = bpf_map__set_max_entries(stack_maps[g], z.stacks);
		if (!err)
			err = bpf_map__set_max_entries(overflow_maps[g], z.overflow);
		if (!err)
			err = bpf_map__set_max_entries(ustack_maps[g], z.ustacks);
		if (!err)
			err = bpf_map__set_max_entries(pf_maps[g], z.pf_counts);
		if (!err)
			err = bpf_map__set_max_entries(off_counts[g], z.offcpu_counts);
		if (!err)
			err = bpf_map__set_max_entries(off_kstacks[g], z.offcpu_stacks);
		if (!err)
			err = bpf_map__set_max_entries(off_ustacks[g], z.offcpu_stacks);
		if (!err)
			err = bpf_map__set_max_entries(wake_counts[g], z.offcpu_counts);
		if (!err)
			err = bpf_map__set_max_entries(wake_kstacks[g], z.offcpu_stacks);
		if (!err)
			err = bpf_map__set_max_entries(wake_ustacks[g], z.offcpu_stacks);
	}
	if (!err && !shared)
		err = sampler_unwind_size(s);
	if (err)
		return err;
	s->count_entries = z.counts;
	return sampler_cache_init(&s->cache, z.stacks, z.overflow);
}

int
sampler_valid_config(const struct sampler_config *c)
{
	if (c->frequency_hz == 0 || c->interval_ms == 0)
		return -EINVAL;
	if (c->heatmap_slots == 0 || c->heatmap_slots > SP_HEATMAP_MAX_SLOTS)
		return -EINVAL;
	return 0;
}

static int
on_event(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;
	const struct sp_exec_event *e = data;

	if (size < sizeof(*e))
		return 0;
	if (s->event_fn)
		s->event_fn(s->exec_arg, (enum sp_event_kind)e->kind, (pid_t)e->tgid);
	else if (s->exec_fn && e->kind == SP_EVENT_EXEC)
		s->exec_fn(s->exec_arg, (pid_t)e->tgid);
	return 0;
}

/* Kernels >= 5.11 charge BPF memory to the memory cgroup instead of
 * RLIMIT_MEMLOCK; older ones need the limit raised, which may be refused. */
static void
try_raise_memlock(void)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

	(void)setrlimit(RLIMIT_MEMLOCK, &unlimited);
}

/* Maps a new object takes over from the one it replaces (by fd).  The
 * CPython records too: they are set once a process is read, so a new
 * rate (new map sizes) left every running interpreter without its
 * Python frames for life. */
static int
share_maps(struct stackprof_bpf *k, const struct stackprof_bpf *from)
{
	struct bpf_map *mine[] = { k->maps.tgid_filter, k->maps.stats, k->maps.heatmap, k->maps.execs,
				   k->maps.unwind_rows, k->maps.unwind_tables, k->maps.unwind_procs,
				   k->maps.python_procs };
	struct bpf_map *theirs[] = { from->maps.tgid_filter, from->maps.stats, from->maps.heatmap,
				     from->maps.execs, from->maps.unwind_rows, from->maps.unwind_tables,
				     from->maps.unwind_procs, from->maps.python_procs };
	int err = 0;

	for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]) && !err; i++)
		err = bpf_map__reuse_fd(mine[i], bpf_map__fd(theirs[i]));
	return err;
}

/* STACKPROF_SAMPLER_HASH_BITS=N keeps N bits of user stack hashes, so
 * that tests can make different stacks meet under one key. */
static uint64_t
ustack_hash_mask(void)
{
	const char *bits = getenv("STACKPROF_SAMPLER_HASH_BITS");
	int n = bits ? atoi(bits) : 64;

	return n <= 0 || n >= 64 ? ~0ull : (1ull << n) - 1;
}

static int
open_and_load(struct sampler *s, const struct stackprof_bpf *share, bool raw_tp)
{
	int err;

	s->skel = stackprof_bpf__open();
	if (!s->skel)
		return -errno ? -errno : -EINVAL;
	/* STACKPROF_SAMPLER_NO_TAI forces the older kernels' clock, for tests */
	s->skel->rodata->have_tai = !getenv("STACKPROF_SAMPLER_NO_TAI") &&
		libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_ktime_get_tai_ns, NULL) > 0;
	s->skel->rodata->ustack_hash_mask = ustack_hash_mask();
	sampler_offcpu_choose(s, raw_tp);
	if (share && (err = share_maps(s->skel, share)) < 0)
		return err;
	if ((err = size_maps(s, share != NULL)) < 0)
		return err;
	return stackprof_bpf__load(s->skel);
}

/*
 * Open, size and load a BPF object for s->cfg, with the buffers its drain
 * needs.  With share, the filter, counters, heat map, exec queue and unwind
 * tables are share's own maps (see sampler_reconfigure).  Where the kernel
 * refuses the object, it is loaded again with sched_switch as a raw
 * tracepoint (STACKPROF_SAMPLER_NO_TP_BTF starts there, for tests).
 */
int
sampler_load_object(struct sampler *s, const struct stackprof_bpf *share)
{
	bool raw = s->raw_tp || getenv("STACKPROF_SAMPLER_NO_TP_BTF") != NULL;
	int err = open_and_load(s, share, raw);

	if (err < 0 && !raw && s->skel) {
		stackprof_bpf__destroy(s->skel);
		sampler_cache_free(&s->cache);
		err = open_and_load(s, share, true);
	}
	if (err < 0)
		return err;
	if ((err = sampler_ustacks_init(&s->ustacks)) < 0 ||
	    (err = sampler_ustacks_init(&s->offstacks)) < 0 ||
	    (err = sampler_ustacks_init(&s->offkstacks)) < 0 ||
	    (err = sampler_ustacks_init(&s->wakeustacks)) < 0 ||
	    (err = sampler_ustacks_init(&s->wakekstacks)) < 0)
		return err;
	if (share)
		s->skel->bss->unwind_mode = share->bss->unwind_mode;
	s->skel->bss->heatmap_slots = s->cfg.heatmap_slots;
	sampler_refresh_clock(s);
	s->keys = calloc(s->count_entries, sizeof(*s->keys));
	s->values = calloc(s->count_entries, sizeof(*s->values));
	s->wake_keys = calloc(s->count_entries, sizeof(*s->wake_keys));
	_Static_assert(sizeof(struct sp_heatmap) >= sizeof(struct sp_stats), "percpu buffer");
	s->percpu = malloc(s->ncpus * sizeof(struct sp_heatmap));
	if (!s->keys || !s->values || !s->wake_keys || !s->percpu)
		return -ENOMEM;
	return 0;
}

static int
load(struct sampler *s)
{
	int err = sampler_load_object(s, NULL);

	if (err < 0 || (err = sampler_unwind_init(s)) < 0)
		return err;
	s->execs = ring_buffer__new(bpf_map__fd(s->skel->maps.execs), on_event, s, NULL);
	if (!s->execs)
		return -errno ? -errno : -ENOMEM;
	return 0;
}

int
sampler_open(struct sampler **sp, const struct sampler_config *config)
{
	struct sampler *s;
	int err;

	*sp = NULL;
	if ((err = sampler_valid_config(config)) < 0)
		return err;
	if (!(s = calloc(1, sizeof(*s))))
		return -ENOMEM;
	s->cfg = *config;
	s->online_fd = -1;
	s->offcpu_min_us = SAMPLER_OFFCPU_MIN_US;
	s->offcpu_sample = SAMPLER_OFFCPU_SAMPLE;
	s->pagefault_period = SAMPLER_PAGEFAULT_PERIOD;
	/* the drain path of kernels without batch map ops (nor stack map
	 * lookup-and-delete), forced for tests */
	s->no_batch = getenv("STACKPROF_SAMPLER_NO_BATCH") != NULL;
	s->no_stack_take = s->no_batch;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		err = s->ncpus < 0 ? s->ncpus : -ENODEV;
		s->ncpus = 0;
		goto fail;
	}
	sampler_offcpu_find_schedule(s);	/* before sampling starts: 45 ms of CPU */
	try_raise_memlock();
	if ((err = load(s)) < 0 || (err = sampler_set_enabled(s, true)) < 0)
		goto fail;
	*sp = s;
	return 0;
fail:
	sampler_close(s);
	return err;
}

void
sampler_close(struct sampler *s)
{
	if (!s)
		return;
	if (s->skel)
		sampler_set_enabled(s, false);
	ring_buffer__free(s->execs);
	stackprof_bpf__destroy(s->skel);
	if (s->online_fd >= 0)
		close(s->online_fd);
	sampler_cache_free(&s->cache);
	sampler_ustacks_free(&s->ustacks);
	sampler_ustacks_free(&s->offstacks);
	sampler_ustacks_free(&s->offkstacks);
	sampler_ustacks_free(&s->wakeustacks);
	sampler_ustacks_free(&s->wakekstacks);
	sampler_unwind_free(&s->unwind);
	free(s->keys);
	free(s->wake_keys);
	free(s->values);
	free(s->percpu);
	free(s);
}

static void
detach_all(struct sampler *s)
{
	sampler_cpus_detach(s);
	sampler_pagefault_detach(s);
	sampler_offcpu_detach(s);
	bpf_link__destroy(s->exec_link);
	bpf_link__destroy(s->exit_link);
	s->exec_link = s->exit_link = NULL;
}

static int
attach_link(struct bpf_link **link, struct bpf_program *prog)
{
	*link = bpf_program__attach(prog);
	return *link ? 0 : -errno ? -errno : -EINVAL;
}

int
sampler_set_enabled(struct sampler *s, bool enabled)
{
	int err;

	if (enabled == s->enabled)
		return 0;
	if (!enabled) {
		detach_all(s);
		s->enabled = false;
		return 0;
	}
	if ((err = attach_link(&s->exec_link, s->skel->progs.exec_notify)) < 0 ||
	    (err = attach_link(&s->exit_link, s->skel->progs.exit_notify)) < 0 ||
	    (err = sampler_cpus_attach(s, s->cfg.frequency_hz)) < 0 ||
	    (s->offcpu_on && (err = sampler_offcpu_attach(s)) < 0) ||
	    (s->pagefault_on && (err = sampler_pagefault_attach(s)) < 0)) {
		detach_all(s);
		return err;
	}
	s->enabled = true;
	return 0;
}

int
sampler_set_frequency(struct sampler *s, unsigned frequency_hz)
{
	int err;

	if (frequency_hz == 0)
		return -EINVAL;
	if (s->enabled)
		err = sampler_cpus_attach(s, frequency_hz);
	else
		err = sampler_cpus_probe(s, frequency_hz);
	if (err < 0)
		return err;
	s->cfg.frequency_hz = frequency_hz;
	return 0;
}

int
sampler_exec_fd(struct sampler *s)
{
	return ring_buffer__epoll_fd(s->execs);
}

/* Hand every queued event to exec_fn (execs only) or event_fn (all). */
static int
consume(struct sampler *s, void (*exec_fn)(void *, pid_t),
	void (*event_fn)(void *, enum sp_event_kind, pid_t), void *arg)
{
	int n;

	s->exec_fn = exec_fn;
	s->event_fn = event_fn;
	s->exec_arg = arg;
	n = ring_buffer__consume(s->execs);
	s->exec_fn = NULL;
	s->event_fn = NULL;
	return n;
}

int
sampler_poll_execs(struct sampler *s, void (*fn)(void *arg, pid_t tgid), void *arg)
{
	return consume(s, fn, NULL, arg);
}

int
sampler_poll_events(struct sampler *s,
		    void (*fn)(void *arg, enum sp_event_kind kind, pid_t tgid), void *arg)
{
	return consume(s, NULL, fn, arg);
}
