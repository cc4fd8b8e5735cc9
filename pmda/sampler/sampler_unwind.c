/*
 * sampler_unwind.c - the kernel side of unwind tables: one array of rows
 * shared by all tables (in blocks of SP_UNWIND_BLOCK_ROWS; user space
 * hands out ranges of blocks), the table directory (id -> first row,
 * count, base) and the per-process mapping arrays.
 *
 * A table's rows and directory entry are written before any process can
 * name it.  A removed table's directory entry is cleared at once (a walker
 * still looking it up finds no rows and uses the frame pointer), but its
 * rows and id are reused only after sampler_wait_quiescent(): no program
 * that could have read them is still running then.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fence_priv.h"
#include "sampler_priv.h"
#include "stackprof.skel.h"
#include "lib/array.h"

static uint32_t
or_default(unsigned v, uint32_t def)
{
	return v ? v : def;
}

static uint32_t
blocks_for(uint32_t rows)
{
	return (rows + SP_UNWIND_BLOCK_ROWS - 1) / SP_UNWIND_BLOCK_ROWS;
}

int
sampler_unwind_size(struct sampler *s)
{
	struct stackprof_bpf *k = s->skel;
	uint32_t blocks = blocks_for(or_default(s->cfg.unwind_rows, SAMPLER_UNWIND_ROWS));
	uint32_t tables = or_default(s->cfg.unwind_tables, SAMPLER_UNWIND_TABLES);
	uint32_t procs = or_default(s->cfg.unwind_processes, SAMPLER_UNWIND_PROCESSES);
	int err;

	if ((err = bpf_map__set_max_entries(k->maps.unwind_rows, blocks)) < 0 ||
	    (err = bpf_map__set_max_entries(k->maps.unwind_tables, tables)) < 0 ||
	    (err = bpf_map__set_max_entries(k->maps.unwind_procs, procs)) < 0)
		return err;
	return 0;
}

/* The allocator for the maps of s's first object. */
int
sampler_unwind_init(struct sampler *s)
{
	struct unwind_state *u = &s->unwind;

	memset(u, 0, sizeof(*u));
	u->nblocks = bpf_map__max_entries(s->skel->maps.unwind_rows);
	u->ntables = bpf_map__max_entries(s->skel->maps.unwind_tables);
	u->free = malloc(sizeof(*u->free));
	u->freecap = u->free ? 1 : 0;
	u->of_table = calloc(u->ntables, sizeof(*u->of_table));
	u->retired = malloc(u->ntables * sizeof(*u->retired));
	if (!u->free || !u->of_table || !u->retired)
		return -ENOMEM;
	u->free[0] = (struct row_range){ 0, u->nblocks };
	u->nfree = 1;
	return 0;
}

void
sampler_unwind_free(struct unwind_state *u)
{
	free(u->free);
	free(u->of_table);
	free(u->retired);
	memset(u, 0, sizeof(*u));
}

/* First fit; -ENOSPC when no free range is that long. */
static int
take_blocks(struct unwind_state *u, uint32_t count, uint32_t *first)
{
	for (uint32_t i = 0; i < u->nfree; i++) {
		if (u->free[i].count < count)
			continue;
		*first = u->free[i].first;
		u->free[i].first += count;
		u->free[i].count -= count;
		if (u->free[i].count == 0) {
			memmove(&u->free[i], &u->free[i + 1], (u->nfree - i - 1) * sizeof(*u->free));
			u->nfree--;
		}
		return 0;
	}
	return -ENOSPC;
}

/* Give r back, merging it with its neighbours.  There are at most as many
 * free ranges as tables + 1, so the array never needs more. */
static int
give_blocks(struct unwind_state *u, struct row_range r)
{
	uint32_t i = 0;

	while (i < u->nfree && u->free[i].first < r.first)
		i++;
	if (i > 0 && u->free[i - 1].first + u->free[i - 1].count == r.first) {
		u->free[i - 1].count += r.count;
		if (i < u->nfree && r.first + r.count == u->free[i].first) {
			u->free[i - 1].count += u->free[i].count;
			memmove(&u->free[i], &u->free[i + 1], (u->nfree - i - 1) * sizeof(*u->free));
			u->nfree--;
		}
		return 0;
	}
	if (i < u->nfree && r.first + r.count == u->free[i].first) {
		u->free[i].first = r.first;
		u->free[i].count += r.count;
		return 0;
	}
	if (array_reserve(&u->free, &u->freecap, (size_t)u->nfree + 1) < 0)
		return -ENOMEM;
	memmove(&u->free[i + 1], &u->free[i], (u->nfree - i) * sizeof(*u->free));
	u->free[i] = r;
	u->nfree++;
	return 0;
}

/* Reuse what was retired, once a wait of the fence has completed since
 * the last retirement: no program that could read it still runs. */
static void
reclaim(struct sampler *s)
{
	struct unwind_state *u = &s->unwind;

	if (u->nretired == 0 || sampler_quiescent_epoch(s) <= u->retired_epoch)
		return;
	for (uint32_t i = 0; i < u->nretired; i++) {
		uint32_t id = u->retired[i];

		if (give_blocks(u, u->of_table[id]) == 0)
			u->of_table[id].count = 0;	/* else the id stays used: no leak of rows */
	}
	u->nretired = 0;
}

static int
free_id(const struct unwind_state *u, uint32_t *id)
{
	for (uint32_t i = 0; i < u->ntables; i++) {
		if (u->of_table[i].count == 0) {
			*id = i;
			return 0;
		}
	}
	return -ENOSPC;
}

/* Room for blocks and an id; when there is none but tables wait to be
 * freed, wait for the programs that might still read them (a grace period,
 * milliseconds) and look again. */
static int
reserve(struct sampler *s, uint32_t blocks, uint32_t *first, uint32_t *id)
{
	struct unwind_state *u = &s->unwind;

	for (int attempt = 0;; attempt++) {
		int err;

		reclaim(s);
		if (!(err = free_id(u, id)))
			err = take_blocks(u, blocks, first);
		if (err != -ENOSPC || attempt > 0 || u->nretired == 0)
			return err;
		if ((err = sampler_wait_quiescent(s)) < 0)
			return err;
	}
}

/* Write rows at block first, one batch update (per-block updates where
 * the kernel has no batch ops). */
static int
write_rows(struct sampler *s, uint32_t first, const struct sp_unwind_row *rows, uint32_t nrows)
{
	int fd = bpf_map__fd(s->skel->maps.unwind_rows);
	uint32_t blocks = blocks_for(nrows), *keys;
	struct sp_unwind_block *vals;
	int err = 0;

	keys = malloc(blocks * sizeof(*keys));
	vals = calloc(blocks, sizeof(*vals));
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(vals, rows, (size_t)nrows * sizeof(*rows));
	for (uint32_t i = 0; i < blocks; i++)
		keys[i] = first + i;
	if (!s->no_batch) {
		uint32_t n = blocks;

		err = bpf_map_update_batch(fd, keys, vals, &n, NULL);
		if (err == 0 || (err != -EINVAL && err != -EOPNOTSUPP))
			goto out;
	}
	for (uint32_t i = 0; i < blocks && !err; i++)
		err = bpf_map_update_elem(fd, &keys[i], &vals[i], BPF_ANY);
out:
	free(keys);
	free(vals);
	return err;
}

static int
check_rows(const struct sp_unwind_row *rows, uint32_t nrows)
{
	if (nrows == 0)
		return -EINVAL;
	if (nrows > SP_UNWIND_MAX_TABLE_ROWS)
		return -E2BIG;
	for (uint32_t i = 1; i < nrows; i++)
		if (rows[i].pc < rows[i - 1].pc)
			return -EINVAL;
	return 0;
}

int
sampler_unwind_table_add(struct sampler *s, uint64_t base,
			 const struct sp_unwind_row *rows, uint32_t nrows)
{
	struct unwind_state *u = &s->unwind;
	struct sp_unwind_table t = { .base = base, .nrows = nrows };
	uint32_t blocks = blocks_for(nrows), first, id;
	int err;

	if ((err = check_rows(rows, nrows)) < 0 || (err = reserve(s, blocks, &first, &id)) < 0)
		return err;
	t.first = first * SP_UNWIND_BLOCK_ROWS;
	err = write_rows(s, first, rows, nrows);
	if (!err)
		err = bpf_map_update_elem(bpf_map__fd(s->skel->maps.unwind_tables), &id, &t, BPF_ANY);
	if (err) {
		give_blocks(u, (struct row_range){ first, blocks });
		return err;
	}
	u->of_table[id] = (struct row_range){ first, blocks };
	u->tables++;
	u->rows += nrows;
	return (int)id;
}

int
sampler_unwind_table_remove(struct sampler *s, uint32_t id)
{
	struct unwind_state *u = &s->unwind;
	struct sp_unwind_table t = { 0 }, old;
	int fd = bpf_map__fd(s->skel->maps.unwind_tables), err;

	if (id >= u->ntables || u->of_table[id].count == 0)
		return -ENOENT;
	for (uint32_t i = 0; i < u->nretired; i++)
		if (u->retired[i] == id)
			return -ENOENT;
	if ((err = bpf_map_lookup_elem(fd, &id, &old)) < 0 ||
	    (err = bpf_map_update_elem(fd, &id, &t, BPF_ANY)) < 0)
		return err;
	u->retired[u->nretired++] = id;
	u->retired_epoch = sampler_quiescent_epoch(s);
	u->tables--;
	u->rows -= old.nrows;
	return 0;
}

static bool
loaded(const struct unwind_state *u, uint32_t id)
{
	if (id >= u->ntables || u->of_table[id].count == 0)
		return false;
	for (uint32_t i = 0; i < u->nretired; i++)
		if (u->retired[i] == id)
			return false;
	return true;
}

static int
check_mappings(const struct unwind_state *u, const struct sp_unwind_mapping *m, uint32_t n)
{
	if (n > SP_UNWIND_MAX_MAPPINGS)
		return -E2BIG;
	for (uint32_t i = 0; i < n; i++) {
		if (m[i].len == 0 || (m[i].table < SP_UNWIND_RETRY && !loaded(u, m[i].table)))
			return -EINVAL;
		if (i > 0 && m[i].start < m[i - 1].start + m[i - 1].len)
			return -EINVAL;
	}
	return 0;
}

int
sampler_unwind_set_process(struct sampler *s, pid_t tgid,
			   const struct sp_unwind_mapping *maps, uint32_t n)
{
	int fd = bpf_map__fd(s->skel->maps.unwind_procs);
	struct sp_unwind_proc *p;
	uint32_t key = (uint32_t)tgid;
	int err;

	if (tgid <= 0)
		return -EINVAL;
	if ((err = check_mappings(&s->unwind, maps, n)) < 0)
		return err;
	if (!(p = calloc(1, sizeof(*p))))
		return -ENOMEM;
	/*
	 * A new process (just exec'd: its libraries are mapped a millisecond
	 * later) may ask for a refresh at once; an update keeps the time of
	 * the walker's last request, so a process whose stacks hold pcs that
	 * no mapping explains (garbage from a frame-pointer step) asks at
	 * most every 250 ms however often it is described.
	 */
	if (bpf_map_lookup_elem(fd, &key, p) < 0)
		p->refresh_ns = 0;
	p->nmappings = n;
	memset(p->mapping, 0, sizeof(p->mapping));
	memcpy(p->mapping, maps, n * sizeof(*maps));
	err = bpf_map_update_elem(fd, &key, p, BPF_ANY);
	free(p);
	return err == -E2BIG ? -ENOSPC : err;
}

int
sampler_unwind_remove_process(struct sampler *s, pid_t tgid)
{
	uint32_t key = (uint32_t)tgid;

	return bpf_map_delete_elem(bpf_map__fd(s->skel->maps.unwind_procs), &key);
}

int
sampler_set_unwind_mode(struct sampler *s, enum sp_unwind_mode mode)
{
	if (mode != SP_UNWIND_AUTO && mode != SP_UNWIND_FP)
		return -EINVAL;
	__atomic_store_n(&s->skel->bss->unwind_mode, (uint32_t)mode, __ATOMIC_SEQ_CST);
	return sampler_wait_quiescent(s);
}

void
sampler_unwind_usage(struct sampler *s, struct sampler_unwind_usage *out)
{
	const struct unwind_state *u = &s->unwind;

	memset(out, 0, sizeof(*out));
	out->rows = u->rows;
	out->rows_capacity = u->nblocks * SP_UNWIND_BLOCK_ROWS;
	out->tables = u->tables;
	out->tables_capacity = u->ntables;
	out->table_bytes = (uint64_t)u->nblocks * sizeof(struct sp_unwind_block) +
			   (uint64_t)u->ntables * sizeof(struct sp_unwind_table);
}
