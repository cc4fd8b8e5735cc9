/*
 * sampler_cpus.c - one perf event per online CPU, each running a BPF
 * program: CPU_CLOCK events for the on-CPU profile here, and the same
 * machinery for any other event set (page faults: sampler_pagefault.c).
 * Detached, a set costs nothing: no event exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include "sampler_priv.h"
#include "stackprof.skel.h"

/* An offline CPU (perf_event_open says ENODEV) is not an error. */
static int
open_event(const struct perf_event_attr *attr, int cpu)
{
	int fd = syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static void
close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* fds[cpu] = event fd, or -1 where the CPU is offline. */
static int
open_all(int ncpus, const struct perf_event_attr *attr, int *fds)
{
	int opened = 0;

	for (int cpu = 0; cpu < ncpus; cpu++) {
		fds[cpu] = open_event(attr, cpu);
		if (fds[cpu] == -ENODEV) {
			fds[cpu] = -1;
			continue;
		}
		if (fds[cpu] < 0) {
			int err = fds[cpu];

			fds[cpu] = -1;
			close_fds(fds, cpu);
			return err;
		}
		opened++;
	}
	return opened ? 0 : -ENODEV;
}

static void
destroy_links(struct bpf_link **links, int n)
{
	for (int i = 0; i < n; i++) {
		bpf_link__destroy(links[i]);	/* closes the event fd too */
		links[i] = NULL;
	}
}

/* The online CPU list, e.g. "0-3,6"; "" if it cannot be read.  The file
 * stays open: pread() regenerates it for a fraction of an open(). */
static void
read_online(struct sampler *s, char *buf, size_t size)
{
	ssize_t n = -1;

	if (s->online_fd < 0)
		s->online_fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	if (s->online_fd >= 0)
		n = pread(s->online_fd, buf, size - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
}

/* On success every fd belongs to a link; on failure all are closed. */
static int
attach_all(struct sampler *s, struct bpf_program *prog, int *fds, struct bpf_link **links)
{
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		if (fds[cpu] < 0)
			continue;
		links[cpu] = bpf_program__attach_perf_event(prog, fds[cpu]);
		if (!links[cpu]) {
			int err = -errno;

			destroy_links(links, cpu);
			close_fds(fds + cpu, s->ncpus - cpu);
			return err ? err : -EINVAL;
		}
		fds[cpu] = -1;
	}
	return 0;
}

int
cpu_events_attach(struct sampler *s, struct cpu_events *ev,
		  const struct perf_event_attr *attr, struct bpf_program *prog)
{
	int *fds = malloc(s->ncpus * sizeof(*fds));
	struct bpf_link **links = calloc(s->ncpus, sizeof(*links));
	char online[sizeof(ev->online)];
	int err = -ENOMEM;

	if (!fds || !links)
		goto out;
	read_online(s, online, sizeof(online));	/* before opening: a change meanwhile shows next time */
	err = open_all(s->ncpus, attr, fds);
	if (err)
		goto out;
	cpu_events_detach(s, ev);
	err = attach_all(s, prog, fds, links);
	if (err)
		goto out;
	ev->links = links;
	links = NULL;
	memcpy(ev->online, online, sizeof(online));
out:
	free(fds);
	free(links);
	return err;
}

void
cpu_events_detach(struct sampler *s, struct cpu_events *ev)
{
	if (!ev->links)
		return;
	destroy_links(ev->links, s->ncpus);
	free(ev->links);
	ev->links = NULL;
}

int
cpu_events_probe(struct sampler *s, const struct perf_event_attr *attr)
{
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		int fd = open_event(attr, cpu);

		if (fd == -ENODEV)
			continue;
		if (fd >= 0)
			close(fd);
		return fd < 0 ? fd : 0;
	}
	return -ENODEV;
}

bool
cpu_events_stale(struct sampler *s, const struct cpu_events *ev)
{
	char online[sizeof(ev->online)];

	read_online(s, online, sizeof(online));
	return !ev->links || strcmp(online, ev->online) != 0;
}

uint64_t
sampler_clock_period_ns(unsigned frequency_hz)
{
	uint64_t p = 1000000000ull / frequency_hz;

	return p + p / 10000;
}

/* The kernel checks a frequency against perf_event_max_sample_rate, not
 * a period: the events are opened by period, the rate probed by frequency. */
static struct perf_event_attr
cpu_clock(unsigned frequency_hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = frequency_hz,
	};

	return attr;
}

/*
 * Sample every online CPU at frequency_hz, replacing any events running.
 * The new events are opened first (that is where a bad rate fails) and the
 * old ones stopped before the new ones start, so no instant is sampled
 * twice.  If attaching then fails, the previous rate is restored.
 */
int
sampler_cpus_attach(struct sampler *s, unsigned frequency_hz)
{
	struct perf_event_attr attr = cpu_clock(frequency_hz);
	bool was_attached = s->clock.links != NULL;
	int err = cpu_events_probe(s, &attr);

	if (err < 0)
		return err;
	attr.freq = 0;
	attr.sample_period = sampler_clock_period_ns(frequency_hz);
	err = cpu_events_attach(s, &s->clock, &attr, s->skel->progs.sample);

	if (err && was_attached && !s->clock.links && frequency_hz != s->cfg.frequency_hz)
		(void)sampler_cpus_attach(s, s->cfg.frequency_hz);
	return err;
}

void
sampler_cpus_detach(struct sampler *s)
{
	cpu_events_detach(s, &s->clock);
}

/*
 * Events exist only for CPUs online when they were opened, and a CPU that
 * goes offline loses its event for good; so when the online list differs
 * from then, open them all again (the page-fault events likewise:
 * sampler_pagefault_refresh).  Called at each drain: one small read.
 * A failure leaves the list stale, so the next call tries again.
 */
int
sampler_cpus_refresh(struct sampler *s)
{
	if (!s->enabled || !cpu_events_stale(s, &s->clock))
		return 0;
	return sampler_cpus_attach(s, s->cfg.frequency_hz);
}

/* Would frequency_hz be accepted?  Checked while detached, so that a
 * stored rate is refused then rather than at the next enable. */
int
sampler_cpus_probe(struct sampler *s, unsigned frequency_hz)
{
	struct perf_event_attr attr = cpu_clock(frequency_hz);

	return cpu_events_probe(s, &attr);
}
