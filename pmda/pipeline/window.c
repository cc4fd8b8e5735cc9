/*
 * window.c - per-process view of the last interval (see header).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lifetime.h"
#include "window.h"
#include "lib/array.h"
#include "lib/hash.h"
#include "lib/hash_chain.h"

struct stack_window {
	struct hash_chain	index;		/* hash_mix(inst) */
	struct window_proc	**sorted;
	size_t			nprocs, sortedcap;
	unsigned		expire_s;
	uint64_t		total_samples;
	uint64_t		drains;		/* window_publish calls */
};

static uint64_t
key_of(int inst)
{
	return hash_mix((uint64_t)(unsigned)inst);
}

struct stack_window *
window_new(unsigned expire_s)
{
	struct stack_window	*w = calloc(1, sizeof(*w));

	if (w != NULL && hash_chain_init(&w->index, 0) < 0) {
		free(w);
		return NULL;
	}
	if (w != NULL)
		w->expire_s = expire_s;
	return w;
}

static struct window_proc *
proc_of(const struct hash_link *l)
{
	return hash_chain_entry(l, struct window_proc, link);
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
	struct hash_link	*l, *next;
	size_t			b;

	if (w == NULL)
		return;
	for (b = 0; b <= w->index.mask; b++)
		for (l = hash_chain_bucket(&w->index, b); l != NULL; l = next) {
			next = l->next;
			proc_free(proc_of(l));
		}
	hash_chain_free(&w->index);
	free(w->sorted);
	free(w);
}

struct window_proc *
window_lookup(const struct stack_window *w, int inst)
{
	uint64_t		h = key_of(inst);
	struct hash_link	*l;

	for (l = hash_chain_first(&w->index, h); l != NULL; l = hash_chain_next(l))
		if (proc_of(l)->inst == inst)
			return proc_of(l);
	return NULL;
}

static void
set_name(struct window_proc *p, const char *process)
{
	char	label[LIFETIME_LABEL_LEN];

	snprintf(p->name, sizeof(p->name), "%s", process);
	lifetime_label(label, sizeof(label), p->pid, p->gen);
	snprintf(p->instname, sizeof(p->instname), "%s %s", label, p->name);
}

static struct window_proc *
proc_get(struct stack_window *w, pid_t pid, unsigned gen, const char *process)
{
	int			inst = lifetime_inst(pid, gen);
	struct window_proc	*p = window_lookup(w, inst);

	if (p == NULL) {
		if ((p = calloc(1, sizeof(*p))) == NULL)
			return NULL;
		if ((p->folded = strdup("")) == NULL) {
			free(p);
			return NULL;
		}
		p->pid = pid;
		p->gen = gen;
		p->inst = inst;
		hash_chain_add(&w->index, &p->link, key_of(inst));
	}
	if (strncmp(p->name, process, sizeof(p->name) - 1) != 0)
		set_name(p, process);	/* first sight, or exec changed it */
	return p;
}

static int
append_line(struct window_proc *p, const char *line, size_t len)
{
	if (array_reserve(&p->building, &p->building_cap, p->building_len + len + 1) < 0)
		return -ENOMEM;
	memcpy(p->building + p->building_len, line, len + 1);
	p->building_len += len;
	return 0;
}

int
window_add(struct stack_window *w, pid_t pid, unsigned gen, const char *process,
	   const char *thread, const char *frames, uint64_t count)
{
	struct window_proc	*p = proc_get(w, pid, gen, process);
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

/* A newer lifetime sampled under its PID means this one has exited. */
static bool
process_gone(const struct lifetimes *lives, const struct window_proc *p)
{
	if (lives != NULL && !lifetimes_newest(lives, p->pid, p->gen))
		return true;
	return kill(p->pid, 0) < 0 && errno == ESRCH;
}

static bool
should_expire(const struct stack_window *w, const struct lifetimes *lives,
	      const struct window_proc *p, time_t now)
{
	time_t	idle = now - p->last_sample;

	if (idle >= (time_t)w->expire_s * 10)
		return true;
	return idle >= (time_t)w->expire_s && process_gone(lives, p);
}

/* Swap the collected text in as the published one; empty the collector. */
static int
publish_one(struct window_proc *p, time_t now, uint64_t drain)
{
	char	*text;

	if (p->last_sample == -1) {
		p->last_sample = now;
		p->last_drain = drain;
	}
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
inst_order(const void *a, const void *b)
{
	int	x = (*(struct window_proc *const *)a)->inst;
	int	y = (*(struct window_proc *const *)b)->inst;

	return (x > y) - (x < y);
}

/* Sampled in one of the last WINDOW_SHOW_DRAINS drains (this one included). */
static bool
shown(const struct stack_window *w, const struct window_proc *p)
{
	return p->last_drain != 0 && w->drains - p->last_drain < WINDOW_SHOW_DRAINS;
}

static void
rebuild_sorted(struct stack_window *w)
{
	struct window_proc	**v;
	struct hash_link	*l;
	size_t			n = 0, b;

	for (b = 0; b <= w->index.mask; b++)
		for (l = hash_chain_bucket(&w->index, b); l != NULL; l = l->next)
			n += shown(w, proc_of(l));
	if (array_reserve(&w->sorted, &w->sortedcap, n ? n : 1) < 0) {
		w->nprocs = 0;	/* entries may have been freed: list none */
		return;
	}
	v = w->sorted;
	n = 0;
	for (b = 0; b <= w->index.mask; b++)
		for (l = hash_chain_bucket(&w->index, b); l != NULL; l = l->next)
			if (shown(w, proc_of(l)))
				v[n++] = proc_of(l);
	qsort(v, n, sizeof(*v), inst_order);
	w->nprocs = n;
}

void
window_publish(struct stack_window *w, const struct lifetimes *lives, time_t now)
{
	struct window_proc	*p;
	struct hash_link	*l, *next;
	size_t			b;

	w->drains++;
	for (b = 0; b <= w->index.mask; b++)
		for (l = hash_chain_bucket(&w->index, b); l != NULL; l = next) {
			next = l->next;
			p = proc_of(l);
			publish_one(p, now, w->drains);
			if (should_expire(w, lives, p, now)) {
				hash_chain_remove(&w->index, l);
				proc_free(p);
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
