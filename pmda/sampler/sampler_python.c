/*
 * sampler_python.c - the kernel side of interpreter frames: the per-process
 * CPython records the walker reads (bpf/python.bpf.h) and the switch that
 * turns them all off (stackprof.control.interpreters).
 */
#include <errno.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fence_priv.h"
#include "sampler_priv.h"
#include "stackprof.skel.h"

int
sampler_python_set(struct sampler *s, pid_t tgid, const struct sp_python_proc *rec)
{
	uint32_t key = (uint32_t)tgid;

	if (rec->eval_end <= rec->eval_start)
		return -EINVAL;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.python_procs), &key, rec, BPF_ANY) < 0)
		return -errno;
	return 0;
}

int
sampler_python_remove(struct sampler *s, pid_t tgid)
{
	uint32_t key = (uint32_t)tgid;

	if (bpf_map_delete_elem(bpf_map__fd(s->skel->maps.python_procs), &key) < 0)
		return -errno;
	return 0;
}

int
sampler_set_interpreters(struct sampler *s, bool on)
{
	__atomic_store_n(&s->skel->data->interpreters, on ? 1u : 0u, __ATOMIC_SEQ_CST);
	return sampler_wait_quiescent(s);
}
