/*
 * sampler_cpus.c - one PERF_COUNT_SW_CPU_CLOCK event per online CPU, each
 * running the sample() BPF program.  Detached, the sampler costs nothing:
 * no event exists.
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
open_cpu_clock(int cpu, unsigned frequency_hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = frequency_hz,
	};
	int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

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
open_all(int ncpus, unsigned frequency_hz, int *fds)
{
	int opened = 0;

	for (int cpu = 0; cpu < ncpus; cpu++) {
		fds[cpu] = open_cpu_clock(cpu, frequency_hz);
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
attach_all(struct sampler *s, int *fds, struct bpf_link **links)
{
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		if (fds[cpu] < 0)
			continue;
		links[cpu] = bpf_program__attach_perf_event(s->skel->progs.sample, fds[cpu]);
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

/*
 * Sample every online CPU at frequency_hz, replacing any events running.
 * The new events are opened first (that is where a bad rate fails) and the
 * old ones stopped before the new ones start, so no instant is sampled
 * twice.  If attaching then fails, the previous rate is restored.
 */
int
sampler_cpus_attach(struct sampler *s, unsigned frequency_hz)
{
	int *fds = malloc(s->ncpus * sizeof(*fds));
	struct bpf_link **links = calloc(s->ncpus, sizeof(*links));
	bool was_attached = s->perf_links != NULL;
	char online[sizeof(s->online)];
	int err = -ENOMEM;

	if (!fds || !links)
		goto out;
	read_online(s, online, sizeof(online));	/* before opening: a change meanwhile shows next time */
	err = open_all(s->ncpus, frequency_hz, fds);
	if (err)
		goto out;
	sampler_cpus_detach(s);
	err = attach_all(s, fds, links);
	if (err) {
		if (was_attached && frequency_hz != s->cfg.frequency_hz)
			(void)sampler_cpus_attach(s, s->cfg.frequency_hz);
		goto out;
	}
	s->perf_links = links;
	links = NULL;
	memcpy(s->online, online, sizeof(online));
out:
	free(fds);
	free(links);
	return err;
}

void
sampler_cpus_detach(struct sampler *s)
{
	if (!s->perf_links)
		return;
	destroy_links(s->perf_links, s->ncpus);
	free(s->perf_links);
	s->perf_links = NULL;
}

/*
 * Events exist only for CPUs online when they were opened, and a CPU that
 * goes offline loses its event for good; so when the online list differs
 * from then, open them all again.  Called at each drain: one small read.
 * A failure leaves the list stale, so the next call tries again.
 */
int
sampler_cpus_refresh(struct sampler *s)
{
	char online[sizeof(s->online)];

	if (!s->enabled)
		return 0;
	read_online(s, online, sizeof(online));
	if (strcmp(online, s->online) == 0 && s->perf_links)
		return 0;
	return sampler_cpus_attach(s, s->cfg.frequency_hz);
}

/* Would frequency_hz be accepted?  Checked while detached, so that a
 * stored rate is refused then rather than at the next enable. */
int
sampler_cpus_probe(struct sampler *s, unsigned frequency_hz)
{
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		int fd = open_cpu_clock(cpu, frequency_hz);

		if (fd == -ENODEV)
			continue;
		if (fd >= 0)
			close(fd);
		return fd < 0 ? fd : 0;
	}
	return -ENODEV;
}
