/*
 * unwind_cache.c - one table per file, shared by every process that maps
 * it (unwind_files.c finds a mapping's file and queues its build when its
 * contents are new).  Finished tables are loaded into the kernel from the
 * caller's thread; a table no tracked process maps is unloaded after the
 * idle time, or earlier when the kernel's rows are needed for another.
 *
 * So that the row array cannot churn (each load evicting what the next
 * process builds again): a table over 1/UNWIND_TABLE_SHARE of the rows is
 * refused and remembered; nothing is evicted for a table that would not
 * fit even then; the victim is the table unused the longest; and a table
 * evicted for room is not built again within the back-off.  A process no
 * drain has met for the idle time gives up its tables when the rows are
 * needed (unwind_procs_forget_unseen), so that long-lived processes no
 * longer sampled cannot keep every new one's tables out.  And with
 * defer_builds, a file met in one drain interval only (a compiler's
 * helpers, one-off programs) is not built at all.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <gelf.h>
#include "unwind_internal.h"
#include "lib/clock.h"
#include "lib/hash_chain.h"

#define IDLE_NS_DEFAULT		(60 * 1000000000ull)
#define QUEUE_BYTES_DEFAULT	(64u << 20)
#define BACKOFF_NS_DEFAULT	(60 * 1000000000ull)

/* ---- loading into the kernel ---- */

static void
unload(struct unwind_cache *c, struct ufile *f)
{
	if (f->state != UF_LOADED)
		return;
	c->kops->table_remove(c->karg, f->kernel_id);
	c->st.tables_loaded--;
	c->st.kernel_rows -= f->nrows;
	c->st.evictions++;
	f->state = UF_FAILED;		/* no table until built again */
	f->dirty = true;
}

/* Unload the table unused the longest (no tracked process maps it, for
 * the longest time); false when none is idle.  It is remembered, so that
 * mapping it again within the back-off does not build it again. */
static bool
evict_idle_one(struct unwind_cache *c)
{
	struct ufile *victim = NULL;

	for (struct ufile *f = c->files; f; f = f->next)
		if (f->state == UF_LOADED && f->refs == 0 &&
		    (!victim || f->idle_since < victim->idle_since))
			victim = f;
	if (!victim)
		return false;
	unload(c, victim);
	victim->state = UF_EVICTED;
	victim->evicted_at = c->now();
	return true;
}

static uint64_t
in_blocks(uint64_t rows)
{
	return (rows + SP_UNWIND_BLOCK_ROWS - 1) / SP_UNWIND_BLOCK_ROWS * SP_UNWIND_BLOCK_ROWS;
}

/* Would nrows fit once every idle table is gone?  Else evicting is waste. */
static bool
could_fit(const struct unwind_cache *c, uint32_t nrows)
{
	uint64_t busy = in_blocks(nrows);

	if (c->kernel_capacity == 0)
		return true;
	for (const struct ufile *f = c->files; f; f = f->next)
		if (f->state == UF_LOADED && f->refs > 0)
			busy += in_blocks(f->nrows);
	return busy <= c->kernel_capacity;
}

/* Room for f's nrows: an idle table unloaded; failing that, the tables
 * of processes no drain met for the idle time made idle first.  f keeps
 * a reference meanwhile, so that it outlives its own processes' going. */
static bool
make_room(struct unwind_cache *c, struct ufile *f, uint32_t nrows)
{
	size_t forgotten;

	if (could_fit(c, nrows) && evict_idle_one(c))
		return true;
	f->refs++;
	forgotten = unwind_procs_forget_unseen(c);
	if (--f->refs == 0) {
		f->idle_since = c->now();
		return false;
	}
	return forgotten > 0 && could_fit(c, nrows) && evict_idle_one(c);
}

static void
load(struct unwind_cache *c, struct ufile *f, const struct ujob *j)
{
	int id;

	c->st.build_ns += j->build_ns;
	if (j->err) {
		f->state = UF_FAILED;
		c->st.build_errors++;
		return;
	}
	c->st.builds++;
	if (c->max_table_rows && j->nrows > c->max_table_rows) {
		f->state = UF_FAILED;
		f->refused = true;
		unwind_layout_free(&f->layout);	/* kept for its identity only */
		c->st.too_large++;
		return;
	}
	/* a table no process maps now does not push out another idle one */
	while ((id = c->kops->table_add(c->karg, j->base, j->rows, j->nrows)) == -ENOSPC &&
	       f->refs > 0 && make_room(c, f, j->nrows))
		;
	if (id == -ENOSPC) {		/* no room now: as if unloaded for room */
		f->state = UF_EVICTED;
		f->evicted_at = c->now();
		c->st.kernel_full++;
		return;
	}
	if (id < 0) {
		f->state = UF_FAILED;
		c->st.kernel_full += id == -E2BIG;
		return;
	}
	f->state = UF_LOADED;
	f->kernel_id = (uint32_t)id;
	f->nrows = j->nrows;
	c->st.tables_loaded++;
	c->st.kernel_rows += j->nrows;
}

void
unwind_cache_poll(struct unwind_cache *c)
{
	struct ujob *j = uworker_take_done(c->worker), *next;
	size_t bytes = 0;

	if (!j)
		return;
	for (; j; j = next) {
		next = j->next;
		bytes += (size_t)j->nrows * sizeof(*j->rows);
		j->file->job = NULL;
		if (j->file->orphan) {
			unwind_file_free(c, j->file);
		} else {
			load(c, j->file, j);
			j->file->dirty = true;
		}
		ujob_free(j);
	}
	uworker_release(c->worker, bytes);
	unwind_procs_push_dirty(c);
}

int
unwind_cache_settle(struct unwind_cache *c, int timeout_ms)
{
	uint64_t end = clock_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	unwind_cache_poll(c);
	while (uworker_pending(c->worker) > 0) {
		uint64_t now = clock_mono_ns();

		if (now >= end)
			return -ETIMEDOUT;
		poll(&pfd, 1, (int)((end - now) / 1000000) + 1);
		unwind_cache_poll(c);
	}
	unwind_cache_poll(c);
	return 0;
}

/* ---- lifetime ---- */

struct unwind_cache *
unwind_cache_new(const struct unwind_config *cfg, const struct unwind_kernel_ops *kops, void *karg,
		 const struct unwind_source_ops *sops, void *sarg)
{
	struct unwind_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		free(c);
		errno = EINVAL;
		return NULL;
	}
	c->kops = kops;
	c->karg = karg;
	c->sops = sops;
	c->sarg = sarg;
	c->idle_ns = cfg && cfg->idle_ns ? cfg->idle_ns : IDLE_NS_DEFAULT;
	c->backoff_ns = cfg && cfg->backoff_ns ? cfg->backoff_ns : BACKOFF_NS_DEFAULT;
	c->now = cfg && cfg->clock_ns ? cfg->clock_ns : clock_mono_ns;
	c->defer_builds = cfg && cfg->defer_builds;
	c->kernel_capacity = cfg ? cfg->kernel_rows : 0;
	c->max_table_rows = c->kernel_capacity / UNWIND_TABLE_SHARE;
	if (hash_chain_init(&c->by_id, 0) < 0 || hash_chain_init(&c->by_inode, 0) < 0 ||
	    hash_chain_init(&c->procs, 0) < 0)
		goto fail;
	c->worker = uworker_new(cfg && cfg->queue_bytes ? cfg->queue_bytes : QUEUE_BYTES_DEFAULT,
				&c->fd);
	if (!c->worker)
		goto fail;
	return c;
fail:
	hash_chain_free(&c->by_id);
	hash_chain_free(&c->by_inode);
	hash_chain_free(&c->procs);
	free(c);
	return NULL;
}

void
unwind_cache_free(struct unwind_cache *c)
{
	if (!c)
		return;
	uworker_free(c->worker);	/* first: no job refers to a file after this */
	c->worker = NULL;
	unwind_procs_free_all(c);
	while (c->files)
		unwind_file_free(c, c->files);
	hash_chain_free(&c->by_id);
	hash_chain_free(&c->by_inode);
	hash_chain_free(&c->procs);
	free(c);
}

int
unwind_cache_fd(const struct unwind_cache *c)
{
	return c->fd;
}

void
unwind_cache_collect(struct unwind_cache *c)
{
	struct ufile *f, *next;
	uint64_t now;

	/* first: files its exits leave idle are idle from now, not from
	 * before (else they would be unloaded at once, and built again) */
	unwind_procs_collect(c);
	now = c->now();
	for (f = c->files; f; f = next) {
		next = f->next;
		/* a process mapping it lived through a drain */
		if (f->state == UF_DEFERRED && f->refs > 0 && f->seen_drain < c->drains)
			unwind_file_build_deferred(c, f);
		if (f->refs > 0 || f->state == UF_QUEUED ||
		    f->refused || now - f->idle_since < c->idle_ns ||
		    (f->state == UF_EVICTED && now - f->evicted_at < c->backoff_ns))
			continue;
		c->st.builds_dropped += f->state == UF_DEFERRED;
		unload(c, f);
		unwind_file_free(c, f);
	}
	c->drains++;
}

void
unwind_cache_kernel_reset(struct unwind_cache *c)
{
	struct ufile *f, *next;

	unwind_procs_free_all(c);
	for (f = c->files; f; f = next) {
		next = f->next;
		if (f->state == UF_QUEUED) {
			/* freed when its build comes back; found by nobody meanwhile */
			if (!f->orphan)
				hash_chain_remove(&c->by_id, &f->link);
			f->orphan = true;
			continue;
		}
		if (f->state == UF_LOADED) {
			c->st.tables_loaded--;
			c->st.kernel_rows -= f->nrows;
		}
		unwind_file_free(c, f);
	}
}

void
unwind_cache_stats(const struct unwind_cache *c, struct unwind_stats *st)
{
	size_t files = 0;

	*st = c->st;
	for (const struct ufile *f = c->files; f; f = f->next)
		files += sizeof(*f) + (size_t)f->layout.nloads * sizeof(struct uload);
	st->kernel_bytes = st->kernel_rows * sizeof(struct sp_unwind_row);
	st->user_bytes = files + unwind_procs_bytes(c);
	st->pending = uworker_pending(c->worker);
}
