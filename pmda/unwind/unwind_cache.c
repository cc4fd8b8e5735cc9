/*
 * unwind_cache.c - one table per file, shared by every process that maps
 * it.  A mapping finds its file through an inode index (no syscall while
 * some tracked process maps that inode: the inode cannot be reused then);
 * an unknown inode is opened through the caller's source ops and
 * identified (build-id, else dev+inode+mtime), so another inode with the
 * same contents shares the table and only new contents go to the worker.
 * Finished tables are loaded into the kernel from the caller's thread; a
 * table no tracked process maps is unloaded after the idle time, or
 * earlier when the kernel's rows are needed for another.
 *
 * So that the row array cannot churn (each load evicting what the next
 * process builds again): a table over 1/UNWIND_TABLE_SHARE of the rows is
 * refused and remembered; nothing is evicted for a table that would not
 * fit even then; the victim is the table unused the longest; and a table
 * evicted for room is not built again within the back-off.  And with
 * defer_builds, a file met in one drain interval only (a compiler's
 * helpers, one-off programs) is not built at all.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <gelf.h>
#include <sys/stat.h>
#include "unwind_internal.h"

#define IDLE_NS_DEFAULT		(60 * 1000000000ull)
#define QUEUE_BYTES_DEFAULT	(64u << 20)
#define BACKOFF_NS_DEFAULT	(60 * 1000000000ull)

uint64_t
unwind_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static unsigned
bucket(uint64_t h)
{
	return (unsigned)((h * 0x9e3779b97f4a7c15ull) >> 40) % UFILE_BUCKETS;
}

static unsigned
id_bucket(const char *id)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (; *id; id++)
		h = (h ^ (uint8_t)*id) * 0x100000001b3ull;
	return bucket(h);
}

/* ---- files by identity ---- */

static struct ufile *
find_file(struct unwind_cache *c, const char *id)
{
	for (struct ufile *f = c->by_id[id_bucket(id)]; f; f = f->hnext)
		if (strcmp(f->id, id) == 0)
			return f;
	return NULL;
}

static struct ufile *
new_file(struct unwind_cache *c, const char *id, struct ulayout *layout)
{
	struct ufile *f = calloc(1, sizeof(*f));
	unsigned b = id_bucket(id);

	if (!f)
		return NULL;
	snprintf(f->id, sizeof(f->id), "%s", id);
	f->layout = *layout;
	memset(layout, 0, sizeof(*layout));
	f->hnext = c->by_id[b];
	c->by_id[b] = f;
	f->next = c->files;
	if (c->files)
		c->files->prev = f;
	c->files = f;
	c->st.tables++;
	f->idle_since = unwind_now_ns();
	f->fd = -1;
	f->seen_drain = c->drains;
	return f;
}

static void
free_file(struct unwind_cache *c, struct ufile *f)
{
	struct ufile **pp = &c->by_id[id_bucket(f->id)];

	while (*pp && *pp != f)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = f->hnext;
	if (f->prev)
		f->prev->next = f->next;
	else
		c->files = f->next;
	if (f->next)
		f->next->prev = f->prev;
	c->st.tables--;
	if (f->fd >= 0)
		close(f->fd);
	unwind_layout_free(&f->layout);
	free(f);
}

/* Queue a build of f from fd or image (both taken over). */
static void
queue_build(struct unwind_cache *c, struct ufile *f, int fd, void *image, size_t len)
{
	struct ujob *j = calloc(1, sizeof(*j));

	if (!j) {
		if (fd >= 0)
			close(fd);
		free(image);
		f->state = UF_FAILED;
		return;
	}
	j->file = f;
	j->fd = fd;
	j->image = image;
	j->len = len;
	f->state = UF_QUEUED;
	f->job = j;
	uworker_submit(c->worker, j);
}

/* The file with id, made (and its build queued) if new; takes fd/image. */
static struct ufile *
file_for(struct unwind_cache *c, const char *id, int fd, void *image, size_t len)
{
	struct ulayout layout;
	struct ufile *f;
	int err;

	if ((f = find_file(c, id)) != NULL) {
		if (f->state == UF_DEFERRED && f->fd < 0)
			f->fd = fd;		/* to build from, if it comes to that */
		else if (fd >= 0)
			close(fd);
		free(image);
		return f;
	}
	err = image ? unwind_layout_mem(image, len, &layout) : unwind_layout_fd(fd, &layout);
	if (err)
		memset(&layout, 0, sizeof(layout));
	if (!(f = new_file(c, id, &layout))) {
		unwind_layout_free(&layout);
		if (fd >= 0)
			close(fd);
		free(image);
		return NULL;
	}
	if (err) {			/* not an ELF we read: remembered, never retried */
		f->state = UF_FAILED;
		c->st.build_errors++;
		if (fd >= 0)
			close(fd);
		free(image);
		return f;
	}
	if (c->defer_builds && fd >= 0) {
		f->state = UF_DEFERRED;
		f->fd = fd;
		return f;
	}
	queue_build(c, f, fd, image, len);
	return f;
}

/* f was deferred: build it now that it was mapped in a second drain (a
 * mapping gave it an fd). */
static void
build_deferred(struct unwind_cache *c, struct ufile *f)
{
	int fd = f->fd;

	if (fd < 0)
		return;
	f->fd = -1;
	queue_build(c, f, fd, NULL, 0);
}

/* ---- inodes ---- */

static struct uinode **
inode_slot(struct unwind_cache *c, uint64_t dev, uint64_t ino)
{
	struct uinode **pp = &c->by_inode[bucket(dev * 31 + ino)];

	while (*pp && ((*pp)->dev != dev || (*pp)->ino != ino))
		pp = &(*pp)->hnext;
	return pp;
}

static struct ufile *
file_of_inode(struct unwind_cache *c, pid_t tgid, const struct unwind_mapping *m,
	      struct uinode **inode)
{
	struct uinode **pp = inode_slot(c, m->dev, m->ino), *n = *pp;
	char id[UNWIND_FILE_ID_LEN];
	struct stat st;
	int fd;

	if (n) {
		*inode = n;
		return n->file;
	}
	if ((fd = c->sops->open_file(c->sarg, tgid, m)) < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_ino != m->ino ||
	    unwind_file_id(fd, id, sizeof(id)) < 0 || !(n = calloc(1, sizeof(*n)))) {
		close(fd);
		return NULL;
	}
	if (!(n->file = file_for(c, id, fd, NULL, 0))) {
		free(n);
		return NULL;
	}
	n->dev = m->dev;
	n->ino = m->ino;
	n->hnext = *pp;
	*pp = n;
	*inode = n;
	return n->file;
}

static struct ufile *
file_of_vdso(struct unwind_cache *c, pid_t tgid, const struct unwind_mapping *m)
{
	char id[UNWIND_FILE_ID_LEN];
	void *image;
	size_t len;

	if (c->sops->read_image(c->sarg, tgid, m, &image, &len) < 0)
		return NULL;
	unwind_image_id(image, len, id, sizeof(id));
	return file_for(c, id, -1, image, len);
}

/* f was evicted for room and m maps it: build it again once the back-off
 * is over (every process that maps it then gets it), else count. */
static void
rebuild_evicted(struct unwind_cache *c, struct ufile *f, pid_t tgid, const struct unwind_mapping *m)
{
	void *image = NULL;
	size_t len = 0;
	int fd = -1;

	if (unwind_now_ns() - f->evicted_at < c->backoff_ns) {
		c->st.rebuilds_deferred++;
		return;
	}
	if (m->kind == UNWIND_MAP_FILE)
		fd = c->sops->open_file(c->sarg, tgid, m);
	else if (c->sops->read_image(c->sarg, tgid, m, &image, &len) < 0)
		image = NULL;
	if (fd >= 0 || image)
		queue_build(c, f, fd, image, len);
}

struct ufile *
unwind_file_get(struct unwind_cache *c, pid_t tgid, const struct unwind_mapping *m,
		struct uinode **inode)
{
	struct ufile *f = NULL;

	*inode = NULL;
	if (m->kind == UNWIND_MAP_FILE)
		f = file_of_inode(c, tgid, m, inode);
	else if (m->kind == UNWIND_MAP_VDSO)
		f = file_of_vdso(c, tgid, m);
	if (f && f->state == UF_EVICTED)
		rebuild_evicted(c, f, tgid, m);
	if (f && f->state == UF_DEFERRED && f->seen_drain < c->drains)
		build_deferred(c, f);
	if (f)
		f->refs++;
	if (*inode)
		(*inode)->refs++;
	return f;
}

/* No tracked process maps f any more: a build not started is not made
 * (the worker is gone when the cache is being freed).  The file is kept
 * deferred, without its fd, so that a process mapping it in a later drain
 * builds it (gzip run file after file: each process lives 0.3 s). */
static void
drop_unwanted(struct unwind_cache *c, struct ufile *f)
{
	if (f->state == UF_QUEUED && c->worker && uworker_cancel(c->worker, f->job)) {
		c->st.builds_dropped++;
		f->job = NULL;
		f->state = UF_DEFERRED;
	}
	if (f->state == UF_DEFERRED && f->fd >= 0) {
		close(f->fd);
		f->fd = -1;
	}
}

void
unwind_file_put(struct unwind_cache *c, struct ufile *f, struct uinode *n)
{
	if (n && --n->refs == 0) {
		/* nobody maps the inode: it may be reused, so look it up anew */
		struct uinode **pp = inode_slot(c, n->dev, n->ino);

		if (*pp == n)
			*pp = n->hnext;
		free(n);
	}
	if (f && --f->refs == 0) {
		f->idle_since = unwind_now_ns();
		drop_unwanted(c, f);
	}
}

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
	victim->evicted_at = unwind_now_ns();
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
	       f->refs > 0 && could_fit(c, j->nrows) && evict_idle_one(c))
		;
	if (id == -ENOSPC) {		/* no room now: as if unloaded for room */
		f->state = UF_EVICTED;
		f->evicted_at = unwind_now_ns();
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
			free_file(c, j->file);
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
	uint64_t end = unwind_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	unwind_cache_poll(c);
	while (uworker_pending(c->worker) > 0) {
		uint64_t now = unwind_now_ns();

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
	c->defer_builds = cfg && cfg->defer_builds;
	c->kernel_capacity = cfg ? cfg->kernel_rows : 0;
	c->max_table_rows = c->kernel_capacity / UNWIND_TABLE_SHARE;
	c->worker = uworker_new(cfg && cfg->queue_bytes ? cfg->queue_bytes : QUEUE_BYTES_DEFAULT,
				&c->fd);
	if (!c->worker) {
		free(c);
		return NULL;
	}
	return c;
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
		free_file(c, c->files);
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
	now = unwind_now_ns();
	for (f = c->files; f; f = next) {
		next = f->next;
		/* a process mapping it lived through a drain */
		if (f->state == UF_DEFERRED && f->refs > 0 && f->seen_drain < c->drains)
			build_deferred(c, f);
		if (f->refs > 0 || f->state == UF_QUEUED ||
		    f->refused || now - f->idle_since < c->idle_ns ||
		    (f->state == UF_EVICTED && now - f->evicted_at < c->backoff_ns))
			continue;
		c->st.builds_dropped += f->state == UF_DEFERRED;
		unload(c, f);
		free_file(c, f);
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
			struct ufile **pp = &c->by_id[id_bucket(f->id)];

			while (*pp && *pp != f)
				pp = &(*pp)->hnext;
			if (*pp)
				*pp = f->hnext;
			f->hnext = NULL;
			f->orphan = true;
			continue;
		}
		if (f->state == UF_LOADED) {
			c->st.tables_loaded--;
			c->st.kernel_rows -= f->nrows;
		}
		free_file(c, f);
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
