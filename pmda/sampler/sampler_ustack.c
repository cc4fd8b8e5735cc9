/*
 * sampler_ustack.c - the user stacks of a retired generation (and the
 * off-CPU stacks, kept the same way).  Before its counts are handed out,
 * the generation's user stack map is emptied into a cache keyed like the
 * map (batch lookup-and-delete, USTACK_BATCH stacks a syscall; key by key
 * on kernels without batch ops), lib's hash table over an array of stacks,
 * so each count key finds its stack with one probe and stacks nobody
 * counted leave the map too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "sampler_priv.h"
#include "stackprof.skel.h"
#include "lib/array.h"

#define USTACK_BATCH	64	/* stacks per batch syscall: 64 KiB of buffer */
#define ENOTSUPP	524

int
sampler_ustacks_init(struct ustack_cache *c)
{
	memset(c, 0, sizeof(*c));
	c->batch_keys = malloc(USTACK_BATCH * sizeof(*c->batch_keys));
	c->batch_vals = malloc(USTACK_BATCH * sizeof(*c->batch_vals));
	if (!c->batch_keys || !c->batch_vals)
		return -ENOMEM;
	return hash_table_init(&c->index, 0);
}

void
sampler_ustacks_free(struct ustack_cache *c)
{
	hash_table_free(&c->index);
	free(c->stacks);
	free(c->batch_keys);
	free(c->batch_vals);
	memset(c, 0, sizeof(*c));
}

void
sampler_ustacks_reset(struct ustack_cache *c)
{
	if (c->index.slots)
		hash_table_clear(&c->index);
	c->used = 0;
}

/* The map's keys are hashes already, but the table wants the low bits
 * mixed; hash_mix is a bijection, so a mixed key is still exact. */
static int
add(struct ustack_cache *c, uint64_t key, const struct sp_user_stack *st)
{
	uint64_t		k = hash_mix(key);
	struct hash_slot	*s;
	size_t			slot;

	if (key < SP_USTACK_RESERVED)
		return 0;		/* never stored: nothing can refer to it */
	s = hash_table_find(&c->index, k);
	if (hash_slot_empty(s)) {
		if (c->used >= UINT32_MAX - 1 || array_reserve(&c->stacks, &c->cap, c->used + 1) < 0 ||
		    hash_table_insert(&c->index, s, k, (uint32_t)c->used) < 0)
			return -ENOMEM;
		slot = c->used++;
	} else {
		slot = hash_slot_value(s);
	}
	c->stacks[slot] = *st;
	if (c->stacks[slot].nframes > SP_MAX_STACK_DEPTH)
		c->stacks[slot].nframes = SP_MAX_STACK_DEPTH;
	return 0;
}

const struct sp_user_stack *
sampler_ustacks_find(const struct ustack_cache *c, uint64_t key)
{
	const struct hash_slot	*s;

	if (!c->index.slots || key < SP_USTACK_RESERVED)
		return NULL;
	s = hash_table_find(&c->index, hash_mix(key));
	return hash_slot_empty(s) ? NULL : &c->stacks[hash_slot_value(s)];
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
