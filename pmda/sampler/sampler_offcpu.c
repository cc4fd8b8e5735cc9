/*
 * sampler_offcpu.c - the off-CPU profile's program on sched_switch
 * (bpf/offcpu.bpf.h): tp_btf where the kernel takes it, else the raw
 * tracepoint; attached only while the profile is on and the sampler
 * enabled, so it costs nothing otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "sampler_priv.h"
#include "stackprof.skel.h"

static struct bpf_program *
switch_program(struct sampler *s)
{
	return s->raw_tp ? s->skel->progs.offcpu_switch_raw : s->skel->progs.offcpu_switch;
}

void
sampler_offcpu_choose(struct sampler *s, bool raw)
{
	s->raw_tp = raw;
	bpf_program__set_autoload(s->skel->progs.offcpu_switch, !raw);
	bpf_program__set_autoload(s->skel->progs.offcpu_switch_raw, raw);
}

bool
sampler_offcpu_raw_tp(struct sampler *s)
{
	return s->raw_tp;
}

/* bpf_ktime_get_ns() is CLOCK_MONOTONIC. */
static uint64_t
monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleeps that began before now were not seen from their start: the epoch
 * makes the program ignore them. */
int
sampler_offcpu_attach(struct sampler *s)
{
	struct stackprof_bpf__bss *bss = s->skel->bss;

	if (s->offcpu_link)
		return 0;
	__atomic_store_n(&bss->offcpu_min_us, s->offcpu_min_us, __ATOMIC_RELAXED);
	__atomic_store_n(&bss->offcpu_epoch_ns, monotonic_ns(), __ATOMIC_SEQ_CST);
	s->offcpu_link = bpf_program__attach(switch_program(s));
	if (!s->offcpu_link)
		return -errno ? -errno : -EINVAL;
	return 0;
}

void
sampler_offcpu_detach(struct sampler *s)
{
	bpf_link__destroy(s->offcpu_link);
	s->offcpu_link = NULL;
}

/* Free every sleeper's record (2 KiB each); the program is detached and
 * quiet. */
static void
forget_sleepers(struct sampler *s)
{
	int fd = bpf_map__fd(s->skel->maps.offcpu_pending);
	uint32_t cap = bpf_map__max_entries(s->skel->maps.offcpu_pending), n = 0;
	uint32_t *tids = malloc(cap * sizeof(*tids));

	if (!tids)
		return;
	while (n < cap && bpf_map_get_next_key(fd, n ? &tids[n - 1] : NULL, &tids[n]) == 0)
		n++;
	for (uint32_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &tids[i]);
	free(tids);
}

/*
 * The text of __schedule, from /proc/kallsyms (sorted by address: its end
 * is the next symbol).  An off-CPU kernel stack starts with our own
 * tracing frames: the program, bpf_trace_run4, and __traceiter_sched_switch
 * when sched_switch runs more than one program.  The thread's own stack
 * starts in __schedule.  Unreadable or hidden addresses: nothing trimmed.
 */
void
sampler_offcpu_find_schedule(struct sampler *s)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256];
	unsigned long long addr;
	bool found = false;

	s->sched_lo = s->sched_hi = 0;
	while (f && fgets(line, sizeof(line), f)) {
		/* 200k lines: parse only __schedule's and the one after */
		if (!found && !strstr(line, " __schedule\n"))
			continue;
		if (sscanf(line, "%llx %*c %255s", &addr, name) != 2)
			continue;
		if (found) {
			s->sched_hi = addr;
			break;
		}
		if (strcmp(name, "__schedule") == 0 && addr != 0) {
			s->sched_lo = addr;
			found = true;
		}
	}
	if (f)
		fclose(f);
	if (s->sched_hi <= s->sched_lo)
		s->sched_lo = s->sched_hi = 0;
}

int
sampler_offcpu_trim(const struct sampler *s, const uint64_t *ips, int n)
{
	for (int i = 0; i < n && i < OFFCPU_TRIM_MAX; i++)
		if (ips[i] >= s->sched_lo && ips[i] < s->sched_hi)
			return i;
	return 0;
}

int
sampler_set_offcpu(struct sampler *s, bool on)
{
	int err;

	if (on == s->offcpu_on)
		return 0;
	if (on) {
		if (s->enabled && (err = sampler_offcpu_attach(s)) < 0)
			return err;
	} else {
		sampler_offcpu_detach(s);
		(void)sampler_wait_quiescent(s);
		forget_sleepers(s);
	}
	s->offcpu_on = on;
	return 0;
}

int
sampler_set_offcpu_min_us(struct sampler *s, unsigned min_us)
{
	s->offcpu_min_us = min_us;
	__atomic_store_n(&s->skel->bss->offcpu_min_us, min_us, __ATOMIC_SEQ_CST);
	return 0;
}
