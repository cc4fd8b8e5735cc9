/*
 * fence_priv.h - the quiescence fence (sampler_fence.c): the one wait the
 * sampler's files need after storing what BPF programs read.  Private to
 * pmda/sampler/.
 */
#ifndef FENCE_PRIV_H
#define FENCE_PRIV_H

#include <stdint.h>

struct sampler;

/*
 * Return once every BPF program running when this was called has finished,
 * so that every sample after it sees what the caller stored into .bss or
 * the maps before calling; each completed wait adds one to the epoch.
 * 0 or -errno.
 */
int sampler_wait_quiescent(struct sampler *s);
/* Completed waits: what was retired when this was e is unread once it
 * exceeds e (the sampler is driven from one thread). */
uint64_t sampler_quiescent_epoch(const struct sampler *s);

#endif /* FENCE_PRIV_H */
