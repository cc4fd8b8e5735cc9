/*
 * sampler_resize.c - apply a new rate, interval and slice count together.
 *
 * Maps are sized at load from CPUs x rate x interval.  When a new
 * configuration needs other sizes, a new BPF object is loaded that reuses
 * the old one's filter, statistics, heat map and exec ring buffer (so the
 * counters stay cumulative and sampler_exec_fd() stays the same fd), the
 * events move to it, and what the old object still holds is handed to the
 * caller before it is freed: nothing counted is lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <bpf/libbpf.h>
#include "fence_priv.h"
#include "sampler_priv.h"
#include "stackprof.skel.h"

static bool
same_sizes(const struct sampler *s, const struct sampler_config *c)
{
	struct map_sizes z = sampler_map_sizes(s->ncpus, c);

	return z.counts == s->count_entries && z.stacks == s->cache.nids[0] &&
	       z.overflow == s->cache.nids[1];
}

/* What belongs to one BPF object changes places between s and other. */
static void
swap_objects(struct sampler *s, struct sampler *other)
{
#define SWAP(field) do { \
	__typeof__(s->field) t_ = s->field; \
	s->field = other->field; \
	other->field = t_; \
} while (0)
	SWAP(skel);
	SWAP(count_entries);
	SWAP(keys);
	SWAP(values);
	SWAP(wake_keys);
	SWAP(cache);
#undef SWAP
}

/* A loaded object for c beside s's, sharing its maps and run-time state. */
static struct sampler *
load_beside(struct sampler *s, const struct sampler_config *c, int *err)
{
	struct sampler *n = calloc(1, sizeof(*n));

	if (!n) {
		*err = -ENOMEM;
		return NULL;
	}
	n->cfg = *c;
	n->ncpus = s->ncpus;
	n->online_fd = -1;
	n->no_batch = s->no_batch;
	n->no_stack_take = s->no_stack_take;
	n->raw_tp = s->raw_tp;
	n->by_sys_exit = s->by_sys_exit;
	*err = sampler_load_object(n, s->skel);
	if (*err < 0) {
		sampler_close(n);
		return NULL;
	}
	n->skel->bss->filter_enabled = s->skel->bss->filter_enabled;
	n->skel->bss->heatmap_slots = s->skel->bss->heatmap_slots;
	return n;
}

/*
 * Detaching closes the perf events, which cancels their timers and waits
 * for a running handler, so no program of the old object runs afterwards;
 * the fence wait, a few milliseconds, makes sure of it without relying on
 * perf's internals.
 */
static int
hand_over(struct sampler *s, struct sampler *old, sampler_stack_fn fn, void *arg)
{
	int err = 0;

	(void)sampler_wait_quiescent(old);
	for (int g = 0; g < SP_GENERATIONS; g++) {
		int e = sampler_drain_generation(old, g, fn, arg);

		if (e < 0 && !err)
			err = e;
	}
	s->lost_stacks[0] += old->lost_stacks[0];
	s->lost_stacks[1] += old->lost_stacks[1];
	return err;
}

static int
move_to_new_object(struct sampler *s, const struct sampler_config *c,
		   sampler_stack_fn fn, void *arg)
{
	struct sampler_config before = s->cfg;
	bool was_enabled = s->enabled;
	struct sampler *old;
	int err;

	/* a refused rate fails here, before a whole object is loaded */
	if ((err = sampler_cpus_probe(s, c->frequency_hz)) < 0)
		return err;
	if (!(old = load_beside(s, c, &err)))
		return err;
	sampler_set_enabled(s, false);
	swap_objects(s, old);
	s->cfg.frequency_hz = c->frequency_hz;
	s->cfg.interval_ms = c->interval_ms;
	if (was_enabled && (err = sampler_set_enabled(s, true)) < 0) {
		swap_objects(s, old);		/* back to the old object */
		s->cfg = before;
		sampler_set_enabled(s, true);
		sampler_close(old);
		return err;
	}
	err = hand_over(s, old, fn, arg);
	sampler_close(old);
	return err;
}

int
sampler_reconfigure(struct sampler *s, const struct sampler_config *c,
		    sampler_stack_fn fn, void *arg)
{
	int err;

	if ((err = sampler_valid_config(c)) < 0)
		return err;
	if (!same_sizes(s, c))
		err = move_to_new_object(s, c, fn, arg);
	else if (c->frequency_hz != s->cfg.frequency_hz)
		err = sampler_set_frequency(s, c->frequency_hz);
	if (err < 0)
		return err;
	s->cfg.interval_ms = c->interval_ms;
	if (c->heatmap_slots != s->cfg.heatmap_slots)
		err = sampler_set_heatmap_slots(s, c->heatmap_slots);
	return err;
}
