/*
 * sampler.c - load the BPF sampler, size its maps, and change its settings
 * (on/off, rate, process filter, heat map slices); read its counters.
 * Per-CPU events live in sampler_cpus.c, draining in sampler_drain.c.
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

#define FILTER_MAX		8192	/* max_entries of tgid_filter */
#define COUNT_MIN		1024
#define COUNT_MAX		262144
#define STACKS_MIN		2048
#define STACKS_MAX		32768
#define OVERFLOW_MIN		512

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
 * runs late.  Stack maps hash into power-of-two buckets and refuse a second
 * stack in a taken bucket; 4 buckets per possible stack plus the overflow
 * map keep such losses rare (see docs/design.md).
 */
struct map_sizes
sampler_map_sizes(int ncpus, const struct sampler_config *c)
{
	uint64_t per_interval = ((uint64_t)ncpus * c->frequency_hz * c->interval_ms + 999) / 1000;
	struct map_sizes z;

	z.counts = clamp_u32(2 * per_interval, COUNT_MIN, COUNT_MAX);
	z.stacks = pow2_at_least(clamp_u32(4 * 2 * per_interval, STACKS_MIN, STACKS_MAX));
	z.overflow = clamp_u32(z.stacks / 4, OVERFLOW_MIN, STACKS_MAX);
	return z;
}

static int
size_maps(struct sampler *s)
{
	struct stackprof_bpf *k = s->skel;
	struct map_sizes z = sampler_map_sizes(s->ncpus, &s->cfg);
	struct bpf_map *count_maps[] = { k->maps.counts0, k->maps.counts1 };
	struct bpf_map *stack_maps[] = { k->maps.stacks0, k->maps.stacks1 };
	struct bpf_map *overflow_maps[] = { k->maps.overflow0, k->maps.overflow1 };
	int err = 0;

	for (int g = 0; g < SP_GENERATIONS && !err; g++) {
		err = bpf_map__set_max_entries(count_maps[g], z.counts);
		if (!err)
			err = bpf_map__set_max_entries(stack_maps[g], z.stacks);
		if (!err)
			err = bpf_map__set_max_entries(overflow_maps[g], z.overflow);
	}
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
on_exec(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;
	const struct sp_exec_event *e = data;

	if (size >= sizeof(*e) && s->exec_fn)
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

/* Maps a new object takes over from the one it replaces (by fd). */
static int
share_maps(struct stackprof_bpf *k, const struct stackprof_bpf *from)
{
	struct bpf_map *mine[] = { k->maps.tgid_filter, k->maps.stats, k->maps.heatmap, k->maps.execs };
	struct bpf_map *theirs[] = { from->maps.tgid_filter, from->maps.stats, from->maps.heatmap,
				     from->maps.execs };
	int err = 0;

	for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]) && !err; i++)
		err = bpf_map__reuse_fd(mine[i], bpf_map__fd(theirs[i]));
	return err;
}

/*
 * Open, size and load a BPF object for s->cfg, with the buffers its drain
 * needs.  With share, the filter, counters, heat map and exec queue are
 * share's own maps (see sampler_reconfigure).
 */
int
sampler_load_object(struct sampler *s, const struct stackprof_bpf *share)
{
	int err;

	s->skel = stackprof_bpf__open();
	if (!s->skel)
		return -errno ? -errno : -EINVAL;
	/* STACKPROF_SAMPLER_NO_TAI forces the older kernels' clock, for tests */
	s->skel->rodata->have_tai = !getenv("STACKPROF_SAMPLER_NO_TAI") &&
		libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_ktime_get_tai_ns, NULL) > 0;
	if (share && (err = share_maps(s->skel, share)) < 0)
		return err;
	if ((err = size_maps(s)) < 0 || (err = stackprof_bpf__load(s->skel)) < 0)
		return err;
	s->skel->bss->heatmap_slots = s->cfg.heatmap_slots;
	sampler_refresh_clock(s);
	s->keys = calloc(s->count_entries, sizeof(*s->keys));
	s->values = calloc(s->count_entries, sizeof(*s->values));
	_Static_assert(sizeof(struct sp_heatmap) >= sizeof(struct sp_stats), "percpu buffer");
	s->percpu = malloc(s->ncpus * sizeof(struct sp_heatmap));
	if (!s->keys || !s->values || !s->percpu)
		return -ENOMEM;
	return 0;
}

static int
load(struct sampler *s)
{
	int err = sampler_load_object(s, NULL);

	if (err < 0)
		return err;
	s->execs = ring_buffer__new(bpf_map__fd(s->skel->maps.execs), on_exec, s, NULL);
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
	free(s->keys);
	free(s->values);
	free(s->percpu);
	free(s);
}

int
sampler_set_enabled(struct sampler *s, bool enabled)
{
	int err;

	if (enabled == s->enabled)
		return 0;
	if (!enabled) {
		sampler_cpus_detach(s);
		bpf_link__destroy(s->exec_link);
		s->exec_link = NULL;
		s->enabled = false;
		return 0;
	}
	s->exec_link = bpf_program__attach(s->skel->progs.exec_notify);
	if (!s->exec_link)
		return -errno ? -errno : -EINVAL;
	err = sampler_cpus_attach(s, s->cfg.frequency_hz);
	if (err < 0) {
		bpf_link__destroy(s->exec_link);
		s->exec_link = NULL;
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

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Delete every tgid of the map not in keep[0..n-1] (sorted). */
static int
remove_stale(int fd, const uint32_t *keep, size_t n)
{
	uint32_t *old = malloc(FILTER_MAX * sizeof(*old)), *prev = NULL;
	size_t nold = 0;

	if (!old)
		return -ENOMEM;
	while (nold < FILTER_MAX && bpf_map_get_next_key(fd, prev, &old[nold]) == 0)
		prev = &old[nold++];
	for (size_t i = 0; i < nold; i++)
		if (!bsearch(&old[i], keep, n, sizeof(*keep), cmp_u32))
			bpf_map_delete_elem(fd, &old[i]);
	free(old);
	return 0;
}

/*
 * Replace the selection.  Stale tgids go before new ones come, so the map
 * never needs more than FILTER_MAX entries; once this returns, every sample
 * taken sees the new selection (sampler_wait_quiescent).
 */
int
sampler_set_filter(struct sampler *s, bool all, const pid_t *tgids, size_t npids)
{
	int fd = bpf_map__fd(s->skel->maps.tgid_filter), err;
	uint32_t *sorted;
	__u8 one = 1;

	if (!all && npids > FILTER_MAX)
		return -E2BIG;
	for (size_t i = 0; !all && i < npids; i++)
		if (tgids[i] <= 0)
			return -EINVAL;
	if (all) {
		__atomic_store_n(&s->skel->bss->filter_enabled, 0, __ATOMIC_SEQ_CST);
		sampler_wait_quiescent(s);
		return remove_stale(fd, NULL, 0);
	}
	if (!(sorted = malloc((npids + 1) * sizeof(*sorted))))
		return -ENOMEM;
	for (size_t i = 0; i < npids; i++)
		sorted[i] = (uint32_t)tgids[i];
	qsort(sorted, npids, sizeof(*sorted), cmp_u32);
	err = remove_stale(fd, sorted, npids);
	for (size_t i = 0; !err && i < npids; i++)
		err = bpf_map_update_elem(fd, &sorted[i], &one, BPF_ANY);
	free(sorted);
	if (err < 0)
		return err;
	__atomic_store_n(&s->skel->bss->filter_enabled, 1, __ATOMIC_SEQ_CST);
	sampler_wait_quiescent(s);
	return 0;
}

/* Stop counting, wait for programs still counting, zero, restart. */
int
sampler_set_heatmap_slots(struct sampler *s, unsigned slots)
{
	__u32 zero = 0;
	int err;

	if (slots == 0 || slots > SP_HEATMAP_MAX_SLOTS)
		return -EINVAL;
	__atomic_store_n(&s->skel->bss->heatmap_slots, 0, __ATOMIC_SEQ_CST);
	sampler_wait_quiescent(s);
	memset(s->percpu, 0, s->ncpus * sizeof(struct sp_heatmap));
	err = bpf_map_update_elem(bpf_map__fd(s->skel->maps.heatmap), &zero, s->percpu, BPF_ANY);
	__atomic_store_n(&s->skel->bss->heatmap_slots,
			 err < 0 ? s->cfg.heatmap_slots : slots, __ATOMIC_SEQ_CST);
	if (err < 0)
		return err;
	s->cfg.heatmap_slots = slots;
	return 0;
}

static int
read_heatmap_percpu(struct sampler *s, unsigned n)
{
	__u32 zero = 0;

	if (n > SP_HEATMAP_MAX_SLOTS)
		return -EINVAL;
	return bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.heatmap), &zero, s->percpu);
}

int
sampler_read_heatmap(struct sampler *s, uint64_t *slots, unsigned n)
{
	const struct sp_heatmap *percpu = s->percpu;
	int err = read_heatmap_percpu(s, n);

	if (err < 0)
		return err;
	for (unsigned i = 0; i < n; i++) {
		slots[i] = 0;
		for (int cpu = 0; cpu < s->ncpus; cpu++)
			slots[i] += percpu[cpu].slot[i];
	}
	return 0;
}

int
sampler_read_heatmap_cpus(struct sampler *s, uint64_t *rows, unsigned n, unsigned ncpus)
{
	const struct sp_heatmap *percpu = s->percpu;
	int err = read_heatmap_percpu(s, n);
	unsigned rowsfilled = ncpus < (unsigned)s->ncpus ? ncpus : (unsigned)s->ncpus;

	if (err < 0)
		return err;
	for (unsigned cpu = 0; cpu < rowsfilled; cpu++)
		memcpy(rows + (size_t)cpu * n, percpu[cpu].slot, n * sizeof(*rows));
	return (int)rowsfilled;
}

int
sampler_possible_cpus(struct sampler *s)
{
	return s->ncpus;
}

int
sampler_read_stats(struct sampler *s, struct sampler_stats *stats)
{
	const struct sp_stats *percpu = s->percpu;
	struct bpf_prog_info info;
	__u32 zero = 0, len = sizeof(info);
	int err;

	memset(stats, 0, sizeof(*stats));
	err = bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stats), &zero, s->percpu);
	if (err < 0)
		return err;
	for (int cpu = 0; cpu < s->ncpus; cpu++)
		for (int i = 0; i < SP_STAT_NR; i++)
			stats->stat[i] += percpu[cpu].stat[i];
	stats->stat[SP_STAT_KSTACK_MISSING] += s->lost_stacks[0];
	stats->stat[SP_STAT_USTACK_MISSING] += s->lost_stacks[1];
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(s->skel->progs.sample), &info, &len) == 0) {
		stats->bpf_run_time_ns = info.run_time_ns;
		stats->bpf_run_count = info.run_cnt;
	}
	stats->drains = s->drains;
	return 0;
}

int
sampler_exec_fd(struct sampler *s)
{
	return ring_buffer__epoll_fd(s->execs);
}

int
sampler_poll_execs(struct sampler *s, void (*fn)(void *arg, pid_t tgid), void *arg)
{
	int n;

	s->exec_fn = fn;
	s->exec_arg = arg;
	n = ring_buffer__consume(s->execs);
	s->exec_fn = NULL;
	return n;
}
