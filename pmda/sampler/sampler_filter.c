/*
 * sampler_filter.c - which processes the BPF program counts: a hash of
 * tgids, used while filter_enabled is set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fence_priv.h"
#include "sampler_priv.h"
#include "stackprof.skel.h"

#define FILTER_MAX	8192	/* max_entries of tgid_filter in stackprof.bpf.c */

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Delete every tgid of the map not in keep[0..n-1] (sorted). */
static int
remove_stale(int fd, const uint32_t *keep, size_t n)
{
	uint32_t *old = malloc(FILTER_MAX * sizeof(*old)), *prev = NULL;
	size_t nold = 0;

	if (!old)
		return -ENOMEM;
	while (nold < FILTER_MAX && bpf_map_get_next_key(fd, prev, &old[nold]) == 0)
		prev = &old[nold++];
	for (size_t i = 0; i < nold; i++)
		if (!bsearch(&old[i], keep, n, sizeof(*keep), cmp_u32))
			bpf_map_delete_elem(fd, &old[i]);
	free(old);
	return 0;
}

/*
 * Replace the selection.  Stale tgids go before new ones come, so the map
 * never needs more than FILTER_MAX entries; once this returns, every sample
 * taken sees the new selection (sampler_wait_quiescent).
 */
int
sampler_set_filter(struct sampler *s, bool all, const pid_t *tgids, size_t npids)
{
	int fd = bpf_map__fd(s->skel->maps.tgid_filter), err;
	uint32_t *sorted;
	__u8 one = 1;

	if (!all && npids > FILTER_MAX)
		return -E2BIG;
	for (size_t i = 0; !all && i < npids; i++)
		if (tgids[i] <= 0)
			return -EINVAL;
	if (all) {
		__atomic_store_n(&s->skel->bss->filter_enabled, 0, __ATOMIC_SEQ_CST);
		err = sampler_wait_quiescent(s);
		return err < 0 ? err : remove_stale(fd, NULL, 0);
	}
	if (!(sorted = malloc((npids + 1) * sizeof(*sorted))))
		return -ENOMEM;
	for (size_t i = 0; i < npids; i++)
		sorted[i] = (uint32_t)tgids[i];
	qsort(sorted, npids, sizeof(*sorted), cmp_u32);
	err = remove_stale(fd, sorted, npids);
	for (size_t i = 0; !err && i < npids; i++)
		err = bpf_map_update_elem(fd, &sorted[i], &one, BPF_ANY);
	free(sorted);
	if (err < 0)
		return err;
	__atomic_store_n(&s->skel->bss->filter_enabled, 1, __ATOMIC_SEQ_CST);
	return sampler_wait_quiescent(s);
}
