/*
 * unwind_procs.c - the processes the cache describes to the walker: each
 * one's executable mappings with the file (table) behind each, turned into
 * the kernel's sorted array of (start, len, bias, table id).  A mapping
 * whose table is not loaded (building, failed, JIT code) gets
 * SP_UNWIND_NO_TABLE: the walker uses its frame pointer there.  When a
 * table arrives, every process mapping it gets its array again.  A file
 * mapping whose table nothing is under way to bring (its file could not
 * be opened or identified: a race with dlopen or exit; or its table was
 * unloaded for room) gets SP_UNWIND_RETRY instead: the walker asks, and
 * the process is described again, with a back-off.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "unwind_internal.h"
#include "lib/hash.h"
#include "lib/hash_chain.h"

static uint64_t
tgid_hash(pid_t tgid)
{
	return hash_mix((uint64_t)(uint32_t)tgid);
}

static struct uproc *
find_proc(const struct unwind_cache *c, pid_t tgid)
{
	for (struct hash_link *l = hash_chain_first(&c->procs, tgid_hash(tgid)); l;
	     l = hash_chain_next(l)) {
		struct uproc *p = hash_chain_entry(l, struct uproc, link);

		if (p->tgid == tgid)
			return p;
	}
	return NULL;
}

static struct uproc *
proc_of(const struct hash_link *l)
{
	return hash_chain_entry(l, struct uproc, link);
}

static void
release_maps(struct unwind_cache *c, struct upmap *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		unwind_file_put(c, maps[i].file, maps[i].inode);
	free(maps);
}

/* Would describing the process again give m a table?  Not while one is
 * queued or deferred (it comes by itself), nor when it was refused. */
static bool
worth_retry(const struct upmap *m)
{
	if (m->kind == UNWIND_MAP_OTHER)
		return false;
	return !m->file || m->file->state == UF_EVICTED;
}

/* The kernel's entry for one mapping; false when it cannot have one. */
static bool
kernel_mapping(const struct upmap *m, struct sp_unwind_mapping *k)
{
	uint64_t bias = 0;

	if (m->end <= m->start || m->end - m->start > UINT32_MAX)
		return false;
	k->start = m->start;
	k->len = (uint32_t)(m->end - m->start);
	k->table = worth_retry(m) ? SP_UNWIND_RETRY : SP_UNWIND_NO_TABLE;
	if (m->file && m->file->state == UF_LOADED &&
	    unwind_mapping_bias(&m->file->layout, m->start, m->pgoff, &bias))
		k->table = m->file->kernel_id;
	k->bias = bias;
	return true;
}

/*
 * At most SP_UNWIND_MAX_MAPPINGS go to the kernel: past that, mappings
 * without a file (JIT regions, mostly) are left out first; the walker
 * then asks for a refresh when it meets them, which is rate-limited.
 */
void
unwind_procs_push(struct unwind_cache *c, struct uproc *p)
{
	struct sp_unwind_mapping k[SP_UNWIND_MAX_MAPPINGS];
	size_t with_file = 0, room_other, others = 0;
	bool retry = false;
	uint32_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		with_file += p->maps[i].file != NULL;
	room_other = with_file >= SP_UNWIND_MAX_MAPPINGS ? 0 : SP_UNWIND_MAX_MAPPINGS - with_file;
	for (size_t i = 0; i < p->n && n < SP_UNWIND_MAX_MAPPINGS; i++) {
		if (!p->maps[i].file && others++ >= room_other)
			continue;
		if (kernel_mapping(&p->maps[i], &k[n]))
			retry |= k[n++].table == SP_UNWIND_RETRY;
	}
	if (!retry)
		p->retry_gap = 0;
	c->st.mappings_dropped += p->n - n;
	if (c->kops->process_set(c->karg, p->tgid, k, n) < 0)
		c->st.process_errors++;
}

void
unwind_procs_push_dirty(struct unwind_cache *c)
{
	for (size_t b = 0; b <= c->procs.mask; b++) {
		for (struct hash_link *l = hash_chain_bucket(&c->procs, b); l; l = l->next) {
			struct uproc *p = proc_of(l);

			for (size_t i = 0; i < p->n; i++) {
				if (p->maps[i].file && p->maps[i].file->dirty) {
					unwind_procs_push(c, p);
					break;
				}
			}
		}
	}
	for (struct ufile *f = c->files; f; f = f->next)
		f->dirty = false;
}

static bool
sorted(const struct unwind_mapping *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (maps[i].end <= maps[i].start || (i > 0 && maps[i].start < maps[i - 1].end))
			return false;
	return true;
}

int
unwind_process_set(struct unwind_cache *c, pid_t tgid, const struct unwind_mapping *maps, size_t n)
{
	struct uproc *p = find_proc(c, tgid);
	struct upmap *pm;

	if (tgid <= 0 || !sorted(maps, n))
		return -EINVAL;
	if (!(pm = calloc(n ? n : 1, sizeof(*pm))))
		return -ENOMEM;
	if (!p) {
		if (!(p = calloc(1, sizeof(*p)))) {
			free(pm);
			return -ENOMEM;
		}
		p->tgid = tgid;
		hash_chain_add(&c->procs, &p->link, tgid_hash(tgid));
		c->st.processes++;
	}
	/* new references first: files the process keeps stay loaded */
	for (size_t i = 0; i < n; i++) {
		pm[i].start = maps[i].start;
		pm[i].end = maps[i].end;
		pm[i].pgoff = maps[i].pgoff;
		pm[i].kind = maps[i].kind;
		pm[i].file = unwind_file_get(c, tgid, &maps[i], &pm[i].inode);
	}
	release_maps(c, p->maps, p->n);
	p->maps = pm;
	p->n = n;
	p->seen_at = c->now();
	p->unselected = false;
	unwind_procs_push(c, p);
	return 0;
}

static void
drop(struct unwind_cache *c, struct uproc *p)
{
	hash_chain_remove(&c->procs, &p->link);
	release_maps(c, p->maps, p->n);
	free(p);
	c->st.processes--;
}

void
unwind_process_forget(struct unwind_cache *c, pid_t tgid, bool kernel_too)
{
	struct uproc *p = find_proc(c, tgid);

	if (!p)
		return;
	if (kernel_too)
		c->kops->process_remove(c->karg, tgid);
	drop(c, p);
}

#define RETRY_GAP_MIN_NS	1000000000ull
#define RETRY_GAP_MAX_NS	(64 * RETRY_GAP_MIN_NS)

bool
unwind_process_retry_due(struct unwind_cache *c, pid_t tgid)
{
	struct uproc *p = find_proc(c, tgid);
	uint64_t now = c->now();

	if (!p || now < p->retry_at)
		return false;
	p->retry_gap = p->retry_gap ? p->retry_gap * 2 : RETRY_GAP_MIN_NS;
	if (p->retry_gap > RETRY_GAP_MAX_NS)
		p->retry_gap = RETRY_GAP_MAX_NS;
	p->retry_at = now + p->retry_gap;
	return true;
}

bool
unwind_process_known(const struct unwind_cache *c, pid_t tgid)
{
	return find_proc(c, tgid) != NULL;
}

bool
unwind_process_seen(struct unwind_cache *c, pid_t tgid)
{
	struct uproc *p = find_proc(c, tgid);

	if (p)
		p->seen_at = c->now();
	return p != NULL;
}

void
unwind_processes_select(struct unwind_cache *c, bool (*keep)(void *arg, pid_t tgid), void *arg)
{
	for (size_t b = 0; b <= c->procs.mask; b++)
		for (struct hash_link *l = hash_chain_bucket(&c->procs, b); l; l = l->next)
			proc_of(l)->unselected = !keep(arg, proc_of(l)->tgid);
}

/* Long-lived processes that are no longer sampled (the process filter
 * narrowed, a daemon gone quiet) would otherwise hold their tables for
 * life, and a full row array would keep every new process's out. */
size_t
unwind_procs_forget_unseen(struct unwind_cache *c)
{
	uint64_t now = c->now();
	struct hash_link *l, *next;
	size_t n = 0;

	for (size_t b = 0; b <= c->procs.mask; b++) {
		for (l = hash_chain_bucket(&c->procs, b); l; l = next) {
			struct uproc *p = proc_of(l);

			next = l->next;
			if (!p->unselected && now - p->seen_at < c->idle_ns)
				continue;
			c->kops->process_remove(c->karg, p->tgid);
			drop(c, p);
			n++;
		}
	}
	return n;
}

/* Exit events can be lost (ring buffer full): processes that are gone
 * are noticed here too.  The kernel dropped their arrays already. */
void
unwind_procs_collect(struct unwind_cache *c)
{
	struct hash_link *l, *next;

	for (size_t b = 0; b <= c->procs.mask; b++) {
		for (l = hash_chain_bucket(&c->procs, b); l; l = next) {
			next = l->next;
			if (kill(proc_of(l)->tgid, 0) < 0 && errno == ESRCH) {
				c->kops->process_remove(c->karg, proc_of(l)->tgid);
				drop(c, proc_of(l));
			}
		}
	}
}

void
unwind_procs_free_all(struct unwind_cache *c)
{
	for (size_t b = 0; b <= c->procs.mask; b++)
		while (hash_chain_bucket(&c->procs, b))
			drop(c, proc_of(hash_chain_bucket(&c->procs, b)));
}

size_t
unwind_procs_bytes(const struct unwind_cache *c)
{
	size_t bytes = 0;

	for (size_t b = 0; b <= c->procs.mask; b++)
		for (const struct hash_link *l = hash_chain_bucket(&c->procs, b); l; l = l->next)
			bytes += sizeof(struct uproc) + proc_of(l)->n * sizeof(struct upmap);
	return bytes;
}
