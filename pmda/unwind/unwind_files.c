/*
 * unwind_files.c - the cache's files: one per identity, found through an
 * inode index.  A mapping whose inode some tracked process maps finds its
 * file without a syscall (the inode cannot be reused then); an unknown
 * inode is opened through the caller's source ops and identified
 * (build-id, else dev+inode+mtime), so another inode with the same
 * contents shares the table and only new contents go to the worker.  A
 * file's references are the mappings of tracked processes
 * (unwind_procs.c); loading and eviction are unwind_cache.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "unwind_internal.h"
#include "lib/hash.h"
#include "lib/hash_chain.h"

static uint64_t
id_hash(const char *id)
{
	return hash_bytes(id, strlen(id));
}

static struct ufile *
find_file(struct unwind_cache *c, const char *id)
{
	for (struct hash_link *l = hash_chain_first(&c->by_id, id_hash(id)); l; l = hash_chain_next(l)) {
		struct ufile *f = hash_chain_entry(l, struct ufile, link);

		if (strcmp(f->id, id) == 0)
			return f;
	}
	return NULL;
}

static struct ufile *
new_file(struct unwind_cache *c, const char *id, struct ulayout *layout)
{
	struct ufile *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	snprintf(f->id, sizeof(f->id), "%s", id);
	f->layout = *layout;
	memset(layout, 0, sizeof(*layout));
	hash_chain_add(&c->by_id, &f->link, id_hash(f->id));
	f->next = c->files;
	if (c->files)
		c->files->prev = f;
	c->files = f;
	c->st.tables++;
	f->idle_since = c->now();
	f->fd = -1;
	f->seen_drain = c->drains;
	return f;
}

void
unwind_file_free(struct unwind_cache *c, struct ufile *f)
{
	if (!f->orphan)
		hash_chain_remove(&c->by_id, &f->link);
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
void
unwind_file_build_deferred(struct unwind_cache *c, struct ufile *f)
{
	int fd = f->fd;

	if (fd < 0)
		return;
	f->fd = -1;
	queue_build(c, f, fd, NULL, 0);
}

/* ---- inodes ---- */

static uint64_t
inode_hash(uint64_t dev, uint64_t ino)
{
	return hash_mix(hash_mix(dev) ^ ino);
}

static struct uinode *
find_inode(struct unwind_cache *c, uint64_t dev, uint64_t ino)
{
	for (struct hash_link *l = hash_chain_first(&c->by_inode, inode_hash(dev, ino)); l;
	     l = hash_chain_next(l)) {
		struct uinode *n = hash_chain_entry(l, struct uinode, link);

		if (n->dev == dev && n->ino == ino)
			return n;
	}
	return NULL;
}

static struct ufile *
file_of_inode(struct unwind_cache *c, pid_t tgid, const struct unwind_mapping *m,
	      struct uinode **inode)
{
	struct uinode *n = find_inode(c, m->dev, m->ino);
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
	hash_chain_add(&c->by_inode, &n->link, inode_hash(n->dev, n->ino));
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

	if (c->now() - f->evicted_at < c->backoff_ns) {
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
		unwind_file_build_deferred(c, f);
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
		hash_chain_remove(&c->by_inode, &n->link);
		free(n);
	}
	if (f && --f->refs == 0) {
		f->idle_since = c->now();
		drop_unwanted(c, f);
	}
}
