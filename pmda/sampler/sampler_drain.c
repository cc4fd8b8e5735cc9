/*
 * sampler_drain.c - retire a generation and hand its stacks to the PMDA.
 *
 * The BPF programs write generation g; sampler_drain() switches them to
 * g^1, waits until no program still running can have read g (a grace
 * period), then empties g's user stack map and off-CPU stack map
 * (sampler_ustack.c) and the count map of every profile (batch
 * lookup-and-delete where the kernel has it), reads each kernel stack the
 * counts reference once, and empties g's kernel stack maps.  On-CPU and
 * page-fault samples share the stack maps; off-CPU stacks have their own
 * (see bpf/offcpu.bpf.h for why), off-wake blocks share them and their
 * wakers' stacks have theirs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fence_priv.h"
#include "sampler_priv.h"
#include "stackprof.skel.h"
#include "lib/clock.h"
#include "lib/array.h"

#define ENOTSUPP	524	/* kernel-internal errno some map ops return */

/* Without bpf_ktime_get_tai_ns the heat map adds this offset to the
 * monotonic clock; refreshed at every drain it follows NTP and steps. */
void
sampler_refresh_clock(struct sampler *s)
{
	int64_t mono0, real, mono1;

	if (s->skel->rodata->have_tai)
		return;
	mono0 = (int64_t)clock_mono_ns();
	real = (int64_t)clock_real_ns();
	mono1 = (int64_t)clock_mono_ns();
	__atomic_store_n(&s->skel->bss->realtime_offset_ns,
			 (__u64)(real - (mono0 + (mono1 - mono0) / 2)), __ATOMIC_RELAXED);
}

int
sampler_cache_init(struct stack_cache *c, uint32_t nmain, uint32_t noverflow)
{
	memset(c, 0, sizeof(*c));
	c->nids[0] = nmain;
	c->nids[1] = noverflow;
	for (int m = 0; m < 2; m++) {
		c->slot_of_id[m] = malloc(c->nids[m] * sizeof(int32_t));
		if (!c->slot_of_id[m])
			return -ENOMEM;
		memset(c->slot_of_id[m], 0xff, c->nids[m] * sizeof(int32_t));
	}
	return 0;
}

void
sampler_cache_free(struct stack_cache *c)
{
	free(c->slot_of_id[0]);
	free(c->slot_of_id[1]);
	free(c->ips);
	free(c->depth);
	free(c->id_of_slot);
	memset(c, 0, sizeof(*c));
}

/* Room for one more slot in the three arrays; each keeps its own
 * capacity until all three have grown, so a failure leaves none short. */
static int
cache_grow(struct stack_cache *c)
{
	size_t ips = c->cap, depth = c->cap, ids = c->cap;

	if (array_reserve(&c->ips, &ips, (size_t)c->used + 1) < 0 ||
	    array_reserve(&c->depth, &depth, ips) < 0 ||
	    array_reserve(&c->id_of_slot, &ids, ips) < 0)
		return -ENOMEM;
	c->cap = ips;
	return 0;
}

static struct bpf_map *
stack_map(struct sampler *s, int gen, int overflow)
{
	if (overflow)
		return gen ? s->skel->maps.overflow1 : s->skel->maps.overflow0;
	return gen ? s->skel->maps.stacks1 : s->skel->maps.stacks0;
}

/*
 * Take one stack out of its map: lookup-and-delete in one syscall where the
 * kernel has it for stack maps (6.12+; a real saving, since a drain reads
 * a hundred or more distinct stacks), else lookup now and delete in
 * clear_stacks().
 */
static int
take_stack(struct sampler *s, int fd, __u32 raw, uint64_t *ips)
{
	int err;

	if (!s->no_stack_take) {
		err = bpf_map_lookup_and_delete_elem(fd, &raw, ips);
		if (err != -EINVAL && err != -EOPNOTSUPP && err != -ENOTSUPP)
			return err;
		s->no_stack_take = true;
	}
	return bpf_map_lookup_elem(fd, &raw, ips);
}

/* The stack behind id, read from the map on first use; depth 0 if the id
 * is an error or the stack is not there. */
static int
read_stack(struct sampler *s, int gen, __s32 id, const uint64_t **ips)
{
	struct stack_cache *c = &s->cache;
	int m = (id & SP_STACK_OVERFLOW) ? 1 : 0;
	uint32_t raw = (uint32_t)id & ~SP_STACK_OVERFLOW;
	int32_t slot;
	int depth;

	*ips = NULL;
	if (id < 0 || raw >= c->nids[m])
		return 0;
	slot = c->slot_of_id[m][raw];
	if (slot < 0) {
		if (c->used == c->cap && cache_grow(c) < 0)
			return 0;
		slot = c->used;
		if (take_stack(s, bpf_map__fd(stack_map(s, gen, m)), raw, c->ips[slot]) < 0)
			memset(c->ips[slot], 0, sizeof(c->ips[slot]));
		for (depth = 0; depth < SP_MAX_STACK_DEPTH && c->ips[slot][depth]; depth++)
			;
		c->depth[slot] = depth;
		c->id_of_slot[slot] = (uint32_t)id;
		c->slot_of_id[m][raw] = slot;
		c->used++;
	}
	*ips = c->ips[slot];
	return c->depth[slot];
}

/* An off-CPU kernel stack (or a waker's, waker): its id is its key in
 * the stack map cached in c; it starts where the thread's own frames do. */
static int
read_offcpu_stack(struct sampler *s, const struct ustack_cache *c, bool waker, __s32 id,
		  const uint64_t **ips)
{
	const struct sp_user_stack *k = id >= 0 ? sampler_ustacks_find(c, (uint64_t)id) : NULL;
	int skip;

	*ips = NULL;
	if (!k || k->nframes == 0)
		return 0;
	skip = waker ? sampler_offwake_trim(s, (const uint64_t *)k->pcs, (int)k->nframes)
		     : sampler_offcpu_trim(s, (const uint64_t *)k->pcs, (int)k->nframes);
	*ips = (const uint64_t *)k->pcs + skip;
	return (int)k->nframes - skip;
}

/* The waker's stacks of an off-wake count into st. */
static void
waker_stacks(struct sampler *s, const struct sp_wake_key *w, struct sampled_stack *st)
{
	const struct sp_user_stack *u = sampler_ustacks_find(&s->wakeustacks, w->waker_user_stack);

	st->wake = w;
	st->nwaker_kernel = read_offcpu_stack(s, &s->wakekstacks, true, w->waker_kernel_stack_id,
					      &st->waker_kernel_ips);
	if (w->waker_kernel_stack_id >= 0 && st->nwaker_kernel == 0)
		s->lost_stacks[0] += st->count;
	if (u) {
		st->waker_user_ips = (const uint64_t *)u->pcs;
		st->nwaker_user = (int)u->nframes;
	} else if (w->waker_user_stack >= SP_USTACK_RESERVED) {
		s->lost_stacks[1] += st->count;
	}
}

static void
deliver(struct sampler *s, enum sampler_profile p, int gen, uint32_t n,
	sampler_stack_fn fn, void *arg)
{
	bool off = p == SAMPLER_OFFCPU || p == SAMPLER_OFFWAKE;
	const struct ustack_cache *users = off ? &s->offstacks : &s->ustacks;

	for (uint32_t i = 0; i < n; i++) {
		struct sampled_stack st = { .profile = p, .key = &s->keys[i], .count = s->values[i] };
		const struct sp_user_stack *u;
		__s32 kid;

		if (p == SAMPLER_OFFWAKE) {
			st.key = &s->wake_keys[i].blocked;
			waker_stacks(s, &s->wake_keys[i], &st);
		}
		u = sampler_ustacks_find(users, st.key->user_stack);
		kid = st.key->kernel_stack_id;
		st.nkernel = off ? read_offcpu_stack(s, &s->offkstacks, false, kid, &st.kernel_ips)
				 : read_stack(s, gen, kid, &st.kernel_ips);
		if (kid >= 0 && st.nkernel == 0)
			s->lost_stacks[0] += st.count;
		if (u) {
			st.user_ips = (const uint64_t *)u->pcs;
			st.nuser = (int)u->nframes;
			st.user_end = (enum sp_unwind_end)u->end;
		} else if (st.key->user_stack >= SP_USTACK_RESERVED) {
			s->lost_stacks[1] += st.count;
		}
		fn(arg, &st);
	}
}

/* Empty the map in count_entries-sized batches: usually one syscall. */
static int
drain_batch(struct sampler *s, enum sampler_profile p, int fd, int gen,
	    sampler_stack_fn fn, void *arg)
{
	void *keys = p == SAMPLER_OFFWAKE ? (void *)s->wake_keys : (void *)s->keys;
	__u64 token = 0;

	for (bool first = true;; first = false) {
		__u32 n = s->count_entries;
		int err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &token, &token,
							  keys, s->values, &n, NULL);

		if (err < 0 && err != -ENOENT && first)
			return err;
		deliver(s, p, gen, n, fn, arg);
		if (err == -ENOENT)
			return 0;
		if (err < 0)
			return err;
	}
}

/* For kernels without batch ops: list keys, then take each, a buffer at a
 * time (the first key of what is left each time: the map shrinks). */
static int
drain_iterate(struct sampler *s, enum sampler_profile p, int fd, int gen,
	      sampler_stack_fn fn, void *arg)
{
	size_t size = p == SAMPLER_OFFWAKE ? sizeof(*s->wake_keys) : sizeof(*s->keys);
	char *keys = p == SAMPLER_OFFWAKE ? (char *)s->wake_keys : (char *)s->keys;

	for (;;) {
		uint32_t n = 0, kept = 0;
		char *prev = NULL;

		while (n < s->count_entries && bpf_map_get_next_key(fd, prev, keys + n * size) == 0)
			prev = keys + n++ * size;
		for (uint32_t i = 0; i < n; i++) {
			if (bpf_map_lookup_elem(fd, keys + i * size, &s->values[kept]) < 0)
				continue;
			bpf_map_delete_elem(fd, keys + i * size);
			memmove(keys + kept++ * size, keys + i * size, size);
		}
		deliver(s, p, gen, kept, fn, arg);
		if (n < s->count_entries || kept == 0)
			return 0;
	}
}

static struct bpf_map *
count_map(struct sampler *s, enum sampler_profile p, int gen)
{
	switch (p) {
	case SAMPLER_OFFCPU:
		return gen ? s->skel->maps.offcpu_counts1 : s->skel->maps.offcpu_counts0;
	case SAMPLER_PAGEFAULT:
		return gen ? s->skel->maps.pf_counts1 : s->skel->maps.pf_counts0;
	case SAMPLER_OFFWAKE:
		return gen ? s->skel->maps.offwake_counts1 : s->skel->maps.offwake_counts0;
	default:
		return gen ? s->skel->maps.counts1 : s->skel->maps.counts0;
	}
}

static int
drain_counts(struct sampler *s, enum sampler_profile p, int gen, sampler_stack_fn fn, void *arg)
{
	int fd = bpf_map__fd(count_map(s, p, gen)), err;

	if (!s->no_batch) {
		err = drain_batch(s, p, fd, gen, fn, arg);
		if (err != -EINVAL && err != -EOPNOTSUPP && err != -ENOTSUPP)
			return err;
		s->no_batch = true;
	}
	return drain_iterate(s, p, fd, gen, fn, arg);
}

/* Forget the stacks read (ids mean other stacks in the other generation);
 * with delete, also remove them from gen's maps if take_stack did not. */
static void
cache_reset(struct sampler *s, int gen, bool delete)
{
	struct stack_cache *c = &s->cache;

	for (uint32_t i = 0; i < c->used; i++) {
		int m = (c->id_of_slot[i] & SP_STACK_OVERFLOW) ? 1 : 0;
		__u32 raw = c->id_of_slot[i] & ~SP_STACK_OVERFLOW;

		if (delete && s->no_stack_take)
			bpf_map_delete_elem(bpf_map__fd(stack_map(s, gen, m)), &raw);
		c->slot_of_id[m][raw] = -1;
	}
	c->used = 0;
}

/* Delete the stacks read, then any nobody referenced (their sample was
 * lost to a full count map), so the next use of gen starts empty. */
static void
clear_stacks(struct sampler *s, int gen)
{
	__u32 id;

	cache_reset(s, gen, true);
	for (int m = 0; m < 2; m++) {
		int fd = bpf_map__fd(stack_map(s, gen, m));

		while (bpf_map_get_next_key(fd, NULL, &id) == 0)
			if (bpf_map_delete_elem(fd, &id) < 0)
				break;
	}
}

/* Hand every stack of gen, which no program writes, to fn and empty it. */
int
sampler_drain_generation(struct sampler *s, int gen, sampler_stack_fn fn, void *arg)
{
	struct stackprof_bpf *k = s->skel;
	int err = sampler_ustacks_read(s, &s->ustacks, gen ? k->maps.ustacks1 : k->maps.ustacks0);

	if (err == 0)
		err = sampler_ustacks_read(s, &s->offstacks,
					   gen ? k->maps.offcpu_ustacks1 : k->maps.offcpu_ustacks0);
	if (err == 0)
		err = sampler_ustacks_read(s, &s->offkstacks,
					   gen ? k->maps.offcpu_kstacks1 : k->maps.offcpu_kstacks0);
	if (err == 0)
		err = sampler_ustacks_read(s, &s->wakeustacks,
					   gen ? k->maps.offwake_ustacks1 : k->maps.offwake_ustacks0);
	if (err == 0)
		err = sampler_ustacks_read(s, &s->wakekstacks,
					   gen ? k->maps.offwake_kstacks1 : k->maps.offwake_kstacks0);
	for (int p = 0; p < SAMPLER_PROFILES && err == 0; p++)
		err = drain_counts(s, (enum sampler_profile)p, gen, fn, arg);
	sampler_ustacks_reset(&s->ustacks);
	sampler_ustacks_reset(&s->offstacks);
	sampler_ustacks_reset(&s->offkstacks);
	sampler_ustacks_reset(&s->wakeustacks);
	sampler_ustacks_reset(&s->wakekstacks);
	if (err < 0) {
		cache_reset(s, gen, false);	/* stacks kept: keys left name them */
		return err;
	}
	clear_stacks(s, gen);
	return 0;
}

int
sampler_drain(struct sampler *s, sampler_stack_fn fn, void *arg)
{
	struct stackprof_bpf__bss *bss = s->skel->bss;
	int old = __atomic_load_n(&bss->generation, __ATOMIC_RELAXED) & 1;
	int err;

	__atomic_store_n(&bss->generation, old ^ 1, __ATOMIC_SEQ_CST);
	if ((err = sampler_wait_quiescent(s)) < 0) {
		/* old may still be written: keep it for the next drain */
		__atomic_store_n(&bss->generation, old, __ATOMIC_SEQ_CST);
		return err;
	}
	sampler_refresh_clock(s);
	err = sampler_drain_generation(s, old, fn, arg);
	if (err < 0)
		return err;
	s->drains++;
	(void)sampler_cpus_refresh(s);	/* CPUs that came online since */
	(void)sampler_pagefault_refresh(s);
	return 0;
}
