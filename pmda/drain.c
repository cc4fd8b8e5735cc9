/*
 * drain.c - turn the sampler's aggregated stacks into published data.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "agent.h"
#include "drain.h"
#include "events.h"
#include "interval.h"

#define FRAME_NAME_MAX	1024

struct drain_pass {
	struct timeval	when;		/* timestamp of every record */
	char		*frames;	/* folded frame list being built */
	size_t		cap;
	uint64_t	symbolize_ns;
	struct interval_stacks *merged;	/* this drain's stacks by name */
};

static uint64_t
mono_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
append_frame(char **buf, size_t *cap, size_t *len, const char *name)
{
	size_t	n = strlen(name);

	if (*len + n + 2 > *cap) {
		size_t	want = *cap ? *cap : 512;
		char	*b;

		while (want < *len + n + 2)
			want *= 2;
		if ((b = realloc(*buf, want)) == NULL)
			return -ENOMEM;
		*buf = b;
		*cap = want;
	}
	if (*len > 0)
		(*buf)[(*len)++] = ';';
	memcpy(*buf + *len, name, n + 1);
	*len += n;
	return 0;
}

int
drain_fold_stack(struct symbolizer *sym, const struct sampled_stack *st,
		 char **buf, size_t *cap)
{
	char	name[FRAME_NAME_MAX];
	size_t	len = 0;
	int	i, sts;

	/* the kernel records innermost first; folded stacks start at the root */
	for (i = st->nuser - 1; i >= 0; i--) {
		symbolize_user(sym, (pid_t)st->key->tgid, st->user_ips[i], name, sizeof(name));
		if ((sts = append_frame(buf, cap, &len, name)) < 0)
			return sts;
	}
	for (i = st->nkernel - 1; i >= 0; i--) {
		symbolize_kernel(sym, st->kernel_ips[i], name, sizeof(name));
		if ((sts = append_frame(buf, cap, &len, name)) < 0)
			return sts;
	}
	/* both stacks lost (counted by the sampler): keep the samples visible */
	if (len == 0 && (sts = append_frame(buf, cap, &len, "[unknown]")) < 0)
		return sts;
	return 0;
}

/* comm is not NUL-terminated when it fills the array */
static void
copy_comm(char *dst, const char *src)
{
	memcpy(dst, src, SP_COMM_LEN);
	dst[SP_COMM_LEN] = '\0';
	frame_name_sanitize(dst);
}

/* One stack from the sampler: name its frames and merge it by name. */
static void
take_stack(void *arg, const struct sampled_stack *st)
{
	struct drain_pass	*pass = arg;
	char			comm[SP_COMM_LEN + 1], pcomm[SP_COMM_LEN + 1];
	uint64_t		t0;
	int			sts;

	copy_comm(comm, st->key->comm);
	copy_comm(pcomm, st->key->pcomm);
	t0 = mono_ns();
	symbolizer_note_process(agent.symbolizer, (pid_t)st->key->tgid);
	sts = drain_fold_stack(agent.symbolizer, st, &pass->frames, &pass->cap);
	pass->symbolize_ns += mono_ns() - t0;
	if (sts == 0)
		sts = interval_add(pass->merged, (pid_t)st->key->tgid, (pid_t)st->key->tid,
				   pcomm, comm, pass->frames, st->count);
	if (sts < 0)
		pmNotifyErr(LOG_ERR, "drain: out of memory for a stack of pid %u", st->key->tgid);
	agent.stats.stacks++;
}

/* One merged stack: into the window and the event queue. */
static void
publish_stack(void *arg, const struct interval_stack *st)
{
	struct drain_pass	*pass = arg;
	struct stack_event	ev;

	window_add(agent.window, st->pid, st->process, st->thread, st->frames, st->count);
	ev.stack = st->frames;
	ev.count = st->count;
	ev.value_us = st->count * 1000000u / agent.interval_frequency_hz;
	ev.pid = st->pid;
	ev.tid = st->tid;
	ev.comm = st->thread;
	ev.process = st->process;
	if (events_append(&ev, &pass->when) == 0)
		agent.stats.records++;
}

void
drain_run(void)
{
	static struct interval_stacks	*merged;	/* reused: its buckets are big */
	struct drain_pass	pass = { .frames = NULL, .cap = 0, .symbolize_ns = 0 };
	struct timespec		now;
	uint64_t		t0 = mono_ns();
	int			sts;

	gettimeofday(&pass.when, NULL);
	if (merged == NULL && (merged = interval_new()) == NULL) {
		pmNotifyErr(LOG_ERR, "drain: out of memory");
		return;
	}
	pass.merged = merged;
	if (agent.sampler != NULL) {
		sts = sampler_drain(agent.sampler, take_stack, &pass);
		if (sts < 0) {
			agent.stats.drain_errors++;
			pmNotifyErr(LOG_ERR, "sampler_drain: %s", strerror(-sts));
		}
	}
	free(pass.frames);
	interval_flush(merged, publish_stack, &pass);
	symbolizer_collect(agent.symbolizer);
	clock_gettime(CLOCK_MONOTONIC, &now);
	window_publish(agent.window, now.tv_sec);
	/* regex matches are re-resolved so new processes join next interval */
	agent_refresh_filter();
	agent.interval_frequency_hz = agent.frequency_hz;

	agent.stats.drains++;
	agent.stats.symbolize_time_us += pass.symbolize_ns / 1000;
	agent.stats.drain_time_us += (mono_ns() - t0) / 1000;
}
