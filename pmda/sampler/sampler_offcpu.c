/*
 * sampler_offcpu.c - the off-CPU profile's programs (bpf/offcpu.bpf.h):
 * tp_btf/sched_switch and tp_btf/rseq_update (tp_btf/sys_exit where the
 * kernel has no rseq tracepoint) where the kernel takes them, else the
 * raw sched_switch tracepoint alone; attached only while the
 * profile is on and the sampler enabled, so they cost nothing otherwise.
 * The off-wake profile's tp_btf/sched_waking (bpf/offwake.bpf.h) rides on
 * them: attached while both profiles are on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>
#include "fence_priv.h"
#include "sampler_priv.h"
#include "stackprof.skel.h"
#include "lib/clock.h"

static struct bpf_program *
switch_program(struct sampler *s)
{
	return s->raw_tp ? s->skel->progs.offcpu_switch_raw : s->skel->progs.offcpu_switch;
}

/* The kernel's BTF has the rseq_update tracepoint (CONFIG_RSEQ). */
static bool
kernel_has_rseq_update(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool has = btf && btf__find_by_name_kind(btf, "btf_trace_rseq_update", BTF_KIND_TYPEDEF) > 0;

	btf__free(btf);
	return has;
}

/* The program that counts a pending block once its thread runs again. */
static struct bpf_program *
resume_program(struct sampler *s)
{
	return s->have_rseq && !s->by_sys_exit ? s->skel->progs.offcpu_rseq_update
					       : s->skel->progs.offcpu_sys_exit;
}

void
sampler_offcpu_choose(struct sampler *s, bool raw)
{
	s->raw_tp = raw;
	s->have_rseq = !raw && kernel_has_rseq_update();
	bpf_program__set_autoload(s->skel->progs.offcpu_switch, !raw);
	bpf_program__set_autoload(s->skel->progs.offcpu_switch_raw, raw);
	bpf_program__set_autoload(s->skel->progs.offcpu_rseq_update, s->have_rseq);
	bpf_program__set_autoload(s->skel->progs.offcpu_sys_exit, !raw);
	bpf_program__set_autoload(s->skel->progs.offwake_waking, !raw);
}

/* The waker program, while off-wake and off-CPU are on (and enabled). */
static int
offwake_attach(struct sampler *s)
{
	if (s->offwake_link || !s->offwake_on || s->raw_tp)
		return 0;
	__atomic_store_n(&s->skel->bss->offwake_irq_lo, s->irq_lo, __ATOMIC_RELAXED);
	__atomic_store_n(&s->skel->bss->offwake_irq_hi, s->irq_hi, __ATOMIC_RELAXED);
	s->offwake_link = bpf_program__attach(s->skel->progs.offwake_waking);
	if (!s->offwake_link)
		return -errno ? -errno : -EINVAL;
	__atomic_store_n(&s->skel->bss->offwake_on, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void
offwake_detach(struct sampler *s)
{
	__atomic_store_n(&s->skel->bss->offwake_on, 0, __ATOMIC_SEQ_CST);
	bpf_link__destroy(s->offwake_link);
	s->offwake_link = NULL;
}

bool
sampler_offcpu_raw_tp(struct sampler *s)
{
	return s->raw_tp;
}

/* Sleeps that began before now were not seen from their start: the epoch
 * makes the program ignore them. */
int
sampler_offcpu_attach(struct sampler *s)
{
	struct stackprof_bpf__bss *bss = s->skel->bss;
	int err;

	if (s->offcpu_link)
		return 0;
	__atomic_store_n(&bss->offcpu_min_us, s->offcpu_min_us, __ATOMIC_RELAXED);
	__atomic_store_n(&bss->offcpu_sample, s->offcpu_sample, __ATOMIC_RELAXED);
	__atomic_store_n(&bss->offcpu_sched_lo, s->sched_lo, __ATOMIC_RELAXED);
	__atomic_store_n(&bss->offcpu_sched_hi, s->sched_hi, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++)
		__atomic_store_n(&bss->offcpu_sched_text[i], s->sched_text[i], __ATOMIC_RELAXED);
	__atomic_store_n(&bss->offcpu_npending, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&bss->offcpu_epoch_ns, clock_mono_ns(), __ATOMIC_SEQ_CST);
	/* rseq_update first: a block the switch program stacks waits for it */
	if (!s->raw_tp && !(s->offcpu_exit_link = bpf_program__attach(resume_program(s))))
		return -errno ? -errno : -EINVAL;
	s->offcpu_link = bpf_program__attach(switch_program(s));
	if (!s->offcpu_link || (err = offwake_attach(s)) < 0) {
		err = s->offcpu_link ? err : -errno ? -errno : -EINVAL;
		sampler_offcpu_detach(s);
		return err;
	}
	return 0;
}

void
sampler_offcpu_detach(struct sampler *s)
{
	offwake_detach(s);
	bpf_link__destroy(s->offcpu_link);
	bpf_link__destroy(s->offcpu_exit_link);
	s->offcpu_link = s->offcpu_exit_link = NULL;
}

/* Free every record of map, keyed by tid (2 KiB each); the programs are
 * detached and quiet.  (Task storage goes with its tasks; attach's epoch
 * makes what is left in it stale.) */
static void
forget_sleepers(struct bpf_map *map)
{
	int fd = bpf_map__fd(map);
	uint32_t cap = bpf_map__max_entries(map), n = 0;
	uint32_t *tids = malloc(cap * sizeof(*tids));

	if (!tids)
		return;
	while (n < cap && bpf_map_get_next_key(fd, n ? &tids[n - 1] : NULL, &tids[n]) == 0)
		n++;
	for (uint32_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &tids[i]);
	free(tids);
}

/* A symbol's text: from its address to the next symbol's (kallsyms is
 * sorted by address). */
struct text_range {
	const char	*name;
	uint64_t	*lo, *hi;
};

/*
 * From /proc/kallsyms: the text of __schedule and of try_to_wake_up
 * (sorted by address: a function's end is the next symbol), and of the
 * scheduler and lock functions (__sched_text_*, __lock_text_*).  An
 * off-CPU kernel stack taken at switch-out starts with our own tracing
 * frames: the program, bpf_trace_run4, and __traceiter_sched_switch when
 * sched_switch runs more than one program; the thread's own stack starts
 * in __schedule.  A waker's, taken at sched_waking, starts in
 * try_to_wake_up after the same, and passes through the interrupt entry
 * code (asm_common_interrupt to __irqentry_text_end, the exception entries
 * before it) when an interrupt woke: the user registers are then another
 * task's.  One taken of a sleeping thread
 * (bpf_get_task_stack) lacks the scheduler and lock functions (the kernel
 * leaves them out of another task's stack, as in /proc/PID/stack): the
 * program finds them on that thread's stack by these ranges.  Unreadable
 * or hidden addresses: nothing trimmed or found.
 */
void
sampler_offcpu_find_schedule(struct sampler *s)
{
	static const char *const names[] = { "__sched_text_start", "__sched_text_end",
					     "__lock_text_start", "__lock_text_end" };
	uint64_t *at[] = { &s->sched_text[0], &s->sched_text[1], &s->sched_text[2],
			   &s->sched_text[3] };
	struct text_range fns[] = { { "__schedule", &s->sched_lo, &s->sched_hi },
				    { "try_to_wake_up", &s->wake_lo, &s->wake_hi } };
	uint64_t irq_start = 0, irq_common = 0;
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256];
	unsigned long long addr;
	struct text_range *open = NULL;		/* its end is the next symbol */
	int left = 8;

	s->sched_lo = s->sched_hi = s->wake_lo = s->wake_hi = s->irq_lo = s->irq_hi = 0;
	memset(s->sched_text, 0, sizeof(s->sched_text));
	while (left > 0 && f && fgets(line, sizeof(line), f)) {
		/* 200k lines: parse only the few wanted */
		if (!open && !strstr(line, " __schedule\n") && !strstr(line, " try_to_wake_up\n") &&
		    !strstr(line, "_text_") && !strstr(line, " asm_common_interrupt\n"))
			continue;
		if (sscanf(line, "%llx %*c %255s", &addr, name) != 2)
			continue;
		if (open) {
			*open->hi = addr;
			open = NULL;
			left--;
		}
		for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
			if (strcmp(name, fns[i].name) == 0 && addr != 0) {
				*fns[i].lo = addr;
				open = &fns[i];
			}
		for (int i = 0; i < 4; i++)
			if (strcmp(name, names[i]) == 0) {
				*at[i] = addr;
				left--;
			}
		if (strcmp(name, "__irqentry_text_start") == 0)
			irq_start = addr, left--;
		else if (strcmp(name, "__irqentry_text_end") == 0)
			s->irq_hi = addr, left--;
		else if (strcmp(name, "asm_common_interrupt") == 0)
			irq_common = addr;
	}
	s->irq_lo = irq_common > irq_start && irq_common < s->irq_hi ? irq_common : irq_start;
	if (s->irq_hi <= s->irq_lo)
		s->irq_lo = s->irq_hi = 0;
	if (f)
		fclose(f);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (*fns[i].hi <= *fns[i].lo)
			*fns[i].lo = *fns[i].hi = 0;
	for (int i = 0; i < 4; i += 2)
		if (s->sched_text[i + 1] <= s->sched_text[i])
			s->sched_text[i] = s->sched_text[i + 1] = 0;
}

static int
trim_to(uint64_t lo, uint64_t hi, const uint64_t *ips, int n)
{
	for (int i = 0; i < n && i < OFFCPU_TRIM_MAX; i++)
		if (ips[i] >= lo && ips[i] < hi)
			return i;
	return 0;
}

int
sampler_offcpu_trim(const struct sampler *s, const uint64_t *ips, int n)
{
	return trim_to(s->sched_lo, s->sched_hi, ips, n);
}

int
sampler_offwake_trim(const struct sampler *s, const uint64_t *ips, int n)
{
	return trim_to(s->wake_lo, s->wake_hi, ips, n);
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
		forget_sleepers(s->skel->maps.offcpu_pending);
		forget_sleepers(s->skel->maps.offwake_wakers);
	}
	s->offcpu_on = on;
	return 0;
}

int
sampler_offcpu_by_sys_exit(struct sampler *s, bool on)
{
	if (s->offcpu_link)
		return -EBUSY;
	if (s->raw_tp)
		return -EOPNOTSUPP;
	s->by_sys_exit = on;
	return 0;
}

int
sampler_set_offwake(struct sampler *s, bool on)
{
	int err;

	if (on == s->offwake_on)
		return 0;
	if (on && s->raw_tp)
		return -EOPNOTSUPP;
	s->offwake_on = on;
	if (on && s->enabled && s->offcpu_link && (err = offwake_attach(s)) < 0) {
		s->offwake_on = false;
		return err;
	}
	if (!on) {
		offwake_detach(s);
		(void)sampler_wait_quiescent(s);
		forget_sleepers(s->skel->maps.offwake_wakers);
	}
	return 0;
}

int
sampler_set_offcpu_min_us(struct sampler *s, unsigned min_us)
{
	s->offcpu_min_us = min_us;
	__atomic_store_n(&s->skel->bss->offcpu_min_us, min_us, __ATOMIC_SEQ_CST);
	return 0;
}

int
sampler_set_offcpu_sample(struct sampler *s, unsigned one_in)
{
	s->offcpu_sample = one_in;
	__atomic_store_n(&s->skel->bss->offcpu_sample, one_in, __ATOMIC_SEQ_CST);
	return 0;
}
