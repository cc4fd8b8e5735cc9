/*
 * sampler_fence.c - the quiescence fence.  The kernel waits for a grace
 * period, a few milliseconds, at each update of a map-in-map (the fence
 * map in stackprof.bpf.c): after it no program that was running before
 * can still be.  Whoever retired something (unwind rows, a filter) waits
 * here and compares epochs; the fence calls nobody back.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fence_priv.h"
#include "sampler_priv.h"
#include "stackprof.skel.h"

int
sampler_wait_quiescent(struct sampler *s)
{
	__u32 zero = 0;
	int target = bpf_map__fd(s->skel->maps.fence_target);
	int err = bpf_map_update_elem(bpf_map__fd(s->skel->maps.fence), &zero, &target, BPF_ANY);

	if (err == 0)
		s->quiescent_epoch++;
	return err;
}

uint64_t
sampler_quiescent_epoch(const struct sampler *s)
{
	return s->quiescent_epoch;
}
