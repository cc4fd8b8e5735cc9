/*
 * sampler_ustack.c - the user stacks of a retired generation (and the
 * off-CPU stacks, kept the same way).  Before its counts are handed out,
 * the generation's user stack map is emptied into a cache keyed like the
 * map (batch lookup-and-delete, USTACK_BATCH stacks a syscall; key by key
 * on kernels without batch ops), so each count key finds its stack with
 * one probe and stacks nobody counted leave the map too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "sampler_priv.h"
#include "stackprof.skel.h"

#define USTACK_BATCH	64	/* stacks per batch syscall: 64 KiB of buffer */
#define ENOTSUPP	524

static uint32_t
slot_hash(uint64_t key, uint32_t mask)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

int
sampler_ustacks_init(struct ustack_cache *c)
{
	memset(c, 0, sizeof(*c));
	c->batch_keys = malloc(USTACK_BATCH * sizeof(*c->batch_keys));
	c->batch_vals = malloc(USTACK_BATCH * sizeof(*c->batch_vals));
	return c->batch_keys && c->batch_vals ? 0 : -ENOMEM;
}

void
sampler_ustacks_free(struct ustack_cache *c)
{
	free(c->keys);
	free(c->slot_of);
	free(c->stacks);
	free(c->batch_keys);
	free(c->batch_vals);
	memset(c, 0, sizeof(*c));
}

void
sampler_ustacks_reset(struct ustack_cache *c)
{
	if (c->keys)
		memset(c->keys, 0, (c->mask + 1) * sizeof(*c->keys));
	c->used = 0;
}

/* Room for one more stack, the index at least twice as large as the
 * stacks (so probes stay short). */
static int
grow(struct ustack_cache *c)
{
	uint32_t cap = c->cap ? 2 * c->cap : 256, size = 2 * cap;
	struct sp_user_stack *stacks = realloc(c->stacks, cap * sizeof(*stacks));
	uint64_t *keys;
	uint32_t *slot_of;

	if (!stacks)
		return -ENOMEM;
	c->stacks = stacks;
	keys = calloc(size, sizeof(*keys));
	slot_of = malloc(size * sizeof(*slot_of));
	if (!keys || !slot_of) {
		free(keys);
		free(slot_of);
		return -ENOMEM;
	}
	for (uint32_t i = 0; c->keys && i <= c->mask; i++) {
		uint32_t h;

		if (!c->keys[i])
			continue;
		for (h = slot_hash(c->keys[i], size - 1); keys[h]; h = (h + 1) & (size - 1))
			;
		keys[h] = c->keys[i];
		slot_of[h] = c->slot_of[i];
	}
	free(c->keys);
	free(c->slot_of);
	c->keys = keys;
	c->slot_of = slot_of;
	c->mask = size - 1;
	c->cap = cap;
	return 0;
}

static int
add(struct ustack_cache *c, uint64_t key, const struct sp_user_stack *st)
{
	uint32_t h;

	if (key < SP_USTACK_RESERVED)
		return 0;		/* never stored: nothing can refer to it */
	if (c->used == c->cap && grow(c) < 0)
		return -ENOMEM;
	for (h = slot_hash(key, c->mask); c->keys[h] && c->keys[h] != key; h = (h + 1) & c->mask)
		;
	if (!c->keys[h]) {
		c->keys[h] = key;
		c->slot_of[h] = c->used++;
	}
	c->stacks[c->slot_of[h]] = *st;
	if (c->stacks[c->slot_of[h]].nframes > SP_MAX_STACK_DEPTH)
		c->stacks[c->slot_of[h]].nframes = SP_MAX_STACK_DEPTH;
	return 0;
}

const struct sp_user_stack *
sampler_ustacks_find(const struct ustack_cache *c, uint64_t key)
{
	if (!c->keys || key < SP_USTACK_RESERVED)
		return NULL;
	for (uint32_t h = slot_hash(key, c->mask); c->keys[h]; h = (h + 1) & c->mask)
		if (c->keys[h] == key)
			return &c->stacks[c->slot_of[h]];
	return NULL;
}

static int
read_batch(struct ustack_cache *c, int fd)
{
	__u64 token = 0;

	for (bool first = true;; first = false) {
		__u32 n = USTACK_BATCH;
		int err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &token, &token,
							  c->batch_keys, c->batch_vals, &n, NULL);

		if (err < 0 && err != -ENOENT && first)
			return err;
		for (__u32 i = 0; i < n; i++)
			if (add(c, c->batch_keys[i], &c->batch_vals[i]) < 0)
				return -ENOMEM;
		if (err == -ENOENT)
			return 0;
		if (err < 0)
			return err;
	}
}

/* Kernels without batch ops: take the first key until none is left. */
static int
read_each(struct ustack_cache *c, int fd)
{
	uint64_t key;

	while (bpf_map_get_next_key(fd, NULL, &key) == 0) {
		if (bpf_map_lookup_elem(fd, &key, &c->batch_vals[0]) == 0 &&
		    add(c, key, &c->batch_vals[0]) < 0)
			return -ENOMEM;
		if (bpf_map_delete_elem(fd, &key) < 0)
			return -errno ? -errno : -EIO;
	}
	return 0;
}

int
sampler_ustacks_read(struct sampler *s, struct ustack_cache *c, struct bpf_map *map)
{
	int fd = bpf_map__fd(map), err;

	if (!s->no_batch) {
		err = read_batch(c, fd);
		/* -ENOSPC: a hash bucket holds more than USTACK_BATCH keys */
		if (err != -EINVAL && err != -EOPNOTSUPP && err != -ENOTSUPP && err != -ENOSPC)
			return err;
	}
	return read_each(c, fd);
}
