/*
 * sampler_counters.c - the BPF program's cumulative counters: statistics
 * (sp_stats) and the wall-clock heat map (sp_heatmap), both per-CPU arrays
 * of one element, so one syscall reads every CPU.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fence_priv.h"
#include "sampler_priv.h"
#include "stackprof.skel.h"

/* Stop counting, wait for programs still counting, zero, restart. */
int
sampler_set_heatmap_slots(struct sampler *s, unsigned slots)
{
	__u32 zero = 0;
	int err;

	if (slots == 0 || slots > SP_HEATMAP_MAX_SLOTS)
		return -EINVAL;
	__atomic_store_n(&s->skel->bss->heatmap_slots, 0, __ATOMIC_SEQ_CST);
	err = sampler_wait_quiescent(s);
	if (!err) {
		memset(s->percpu, 0, s->ncpus * sizeof(struct sp_heatmap));
		err = bpf_map_update_elem(bpf_map__fd(s->skel->maps.heatmap), &zero, s->percpu, BPF_ANY);
	}
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

/* A program's run time and count (0 unless kernel.bpf_stats_enabled, or
 * for a program not loaded). */
static void
run_time(struct bpf_program *prog, uint64_t *ns, uint64_t *count)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(prog);

	memset(&info, 0, sizeof(info));
	if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0) {
		*ns = info.run_time_ns;
		*count = info.run_cnt;
	}
}

void
sampler_bpf_total(struct sampler *s, uint64_t *ns, uint64_t *runs)
{
	struct bpf_program *prog;

	*ns = *runs = 0;
	bpf_object__for_each_program(prog, s->skel->obj) {
		uint64_t n = 0, c = 0;

		run_time(prog, &n, &c);
		*ns += n;
		*runs += c;
	}
}

int
sampler_read_stats(struct sampler *s, struct sampler_stats *stats)
{
	const struct sp_stats *percpu = s->percpu;
	struct stackprof_bpf *k = s->skel;
	__u32 zero = 0;
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
	run_time(k->progs.sample, &stats->bpf_run_time_ns, &stats->bpf_run_count);
	run_time(s->raw_tp ? k->progs.offcpu_switch_raw : k->progs.offcpu_switch,
		 &stats->offcpu_run_time_ns, &stats->offcpu_run_count);
	if (!s->raw_tp) {		/* its time, not its runs: one a syscall */
		uint64_t ns = 0, runs = 0;

		run_time(k->progs.offcpu_sys_exit, &ns, &runs);
		stats->offcpu_run_time_ns += ns;
		run_time(k->progs.offcpu_rseq_update, &ns, &runs);	/* one a switch */
		stats->offcpu_run_time_ns += ns;
		run_time(k->progs.offwake_waking, &ns, &runs);	/* one a wake */
		stats->offcpu_run_time_ns += ns;
	}
	run_time(k->progs.pagefault_sample, &stats->pagefault_run_time_ns,
		 &stats->pagefault_run_count);
	stats->drains = s->drains;
	return 0;
}
