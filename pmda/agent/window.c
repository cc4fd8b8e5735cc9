/*
 * window.c - per-process view of the last interval (see header).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "window.h"

#define WINDOW_BUCKETS	1024

struct stack_window {
	struct window_proc	*bucket[WINDOW_BUCKETS];
	struct window_proc	**sorted;
	size_t			nprocs;
	unsigned		expire_s;
	uint64_t		total_samples;
};

static unsigned
bucket_of(pid_t pid)
{
	return (unsigned)pid % WINDOW_BUCKETS;
}

struct stack_window *
window_new(unsigned expire_s)
{
	struct stack_window	*w = calloc(1, sizeof(*w));

	if (w != NULL)
		w->expire_s = expire_s;
	return w;
}

static void
proc_free(struct window_proc *p)
{
	free(p->folded);
	free(p->building);
	free(p);
}

void
window_free(struct stack_window *w)
{
	struct window_proc	*p, *next;
	unsigned		b;

	if (w == NULL)
		return;
	for (b = 0; b < WINDOW_BUCKETS; b++)
		for (p = w->bucket[b]; p != NULL; p = next) {
			next = p->next;
			proc_free(p);
		}
	free(w->sorted);
	free(w);
}

struct window_proc *
window_lookup(const struct stack_window *w, pid_t pid)
{
	struct window_proc	*p;

	for (p = w->bucket[bucket_of(pid)]; p != NULL; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static void
set_name(struct window_proc *p, const char *process)
{
	snprintf(p->name, sizeof(p->name), "%s", process);
	snprintf(p->instname, sizeof(p->instname), "%d %s", (int)p->pid, p->name);
}

static struct window_proc *
proc_get(struct stack_window *w, pid_t pid, const char *process)
{
	struct window_proc	*p = window_lookup(w, pid);

	if (p == NULL) {
		if ((p = calloc(1, sizeof(*p))) == NULL)
			return NULL;
		if ((p->folded = strdup("")) == NULL) {
			free(p);
			return NULL;
		}
		p->pid = pid;
		p->next = w->bucket[bucket_of(pid)];
		w->bucket[bucket_of(pid)] = p;
	}
	if (strncmp(p->name, process, sizeof(p->name) - 1) != 0)
		set_name(p, process);	/* first sight, or exec changed it */
	return p;
}

static int
append_line(struct window_proc *p, const char *line, size_t len)
{
	if (p->building_len + len + 1 > p->building_cap) {
		size_t	cap = p->building_cap ? p->building_cap : 256;
		char	*b;

		while (cap < p->building_len + len + 1)
			cap *= 2;
		if ((b = realloc(p->building, cap)) == NULL)
			return -ENOMEM;
		p->building = b;
		p->building_cap = cap;
	}
	memcpy(p->building + p->building_len, line, len + 1);
	p->building_len += len;
	return 0;
}

int
window_add(struct stack_window *w, pid_t pid, const char *process,
	   const char *thread, const char *frames, uint64_t count)
{
	struct window_proc	*p = proc_get(w, pid, process);
	char			*line;
	int			len, sts;

	if (p == NULL)
		return -ENOMEM;
	len = asprintf(&line, "%s;[t] %s;%s %" PRIu64 "\n", p->name, thread, frames, count);
	if (len < 0)
		return -ENOMEM;
	sts = append_line(p, line, (size_t)len);
	free(line);
	if (sts < 0)
		return sts;
	p->samples += count;
	p->last_sample = -1;	/* stamped at publish */
	w->total_samples += count;
	return 0;
}

static bool
process_gone(pid_t pid)
{
	return kill(pid, 0) < 0 && errno == ESRCH;
}

static bool
should_expire(const struct stack_window *w, const struct window_proc *p, time_t now)
{
	time_t	idle = now - p->last_sample;

	if (idle >= (time_t)w->expire_s * 10)
		return true;
	return idle >= (time_t)w->expire_s && process_gone(p->pid);
}

/* Swap the collected text in as the published one; empty the collector. */
static int
publish_one(struct window_proc *p, time_t now)
{
	char	*text;

	if (p->last_sample == -1)
		p->last_sample = now;
	if (p->building_len == 0) {
		if (p->folded_len == 0)
			return 0;
		if ((text = strdup("")) == NULL)
			return -ENOMEM;
	} else {
		text = p->building;
		p->building = NULL;
		p->building_cap = 0;
	}
	free(p->folded);
	p->folded = text;
	p->folded_len = p->building_len;
	p->building_len = 0;
	return 0;
}

static int
pid_order(const void *a, const void *b)
{
	pid_t	x = (*(struct window_proc *const *)a)->pid;
	pid_t	y = (*(struct window_proc *const *)b)->pid;

	return (x > y) - (x < y);
}

static void
rebuild_sorted(struct stack_window *w)
{
	struct window_proc	*p, **v;
	size_t			n = 0;
	unsigned		b;

	for (b = 0; b < WINDOW_BUCKETS; b++)
		for (p = w->bucket[b]; p != NULL; p = p->next)
			n++;
	if ((v = realloc(w->sorted, (n ? n : 1) * sizeof(*v))) == NULL) {
		w->nprocs = 0;	/* entries may have been freed: list none */
		return;
	}
	w->sorted = v;
	n = 0;
	for (b = 0; b < WINDOW_BUCKETS; b++)
		for (p = w->bucket[b]; p != NULL; p = p->next)
			v[n++] = p;
	qsort(v, n, sizeof(*v), pid_order);
	w->nprocs = n;
}

void
window_publish(struct stack_window *w, time_t now)
{
	struct window_proc	**pp, *p;
	unsigned		b;

	for (b = 0; b < WINDOW_BUCKETS; b++) {
		for (pp = &w->bucket[b]; (p = *pp) != NULL; ) {
			publish_one(p, now);
			if (should_expire(w, p, now)) {
				*pp = p->next;
				proc_free(p);
				continue;
			}
			pp = &p->next;
		}
	}
	rebuild_sorted(w);
}

size_t
window_procs(const struct stack_window *w, struct window_proc *const **list)
{
	*list = w->sorted;
	return w->nprocs;
}

uint64_t
window_total_samples(const struct stack_window *w)
{
	return w->total_samples;
}
