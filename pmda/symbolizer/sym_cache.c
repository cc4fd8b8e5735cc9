/*
 * sym_cache.c - ELF symbol tables shared by every process that maps the
 * same file, keyed by the (device, inode) /proc/PID/maps reports and the
 * file's stamp (ctime, mtime, size: an inode can be reused), and bounded
 * by bytes with least-recently-used eviction.
 *
 * Process entries hold references to the tables their mappings use.  Only
 * unreferenced tables are evicted; the symbolizer evicts processes first
 * when it needs their tables' memory (symbolize.c).
 */
#include <stdbool.h>
#include <stdlib.h>
#include "sym_internal.h"

#define CACHE_BUCKETS	1024

struct sym_cache {
	struct sym_elf	*bucket[CACHE_BUCKETS];
	struct sym_elf	lru;		/* sentinel: lru.lru_next is the newest */
	size_t		bytes;
	size_t		count;
};

static unsigned
bucket_of(dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ (uint64_t)ino;

	h ^= h >> 29;
	return (unsigned)(h * 0xbf58476d1ce4e5b9ull >> 40) % CACHE_BUCKETS;
}

static void
lru_unlink(struct sym_elf *e)
{
	e->lru_prev->lru_next = e->lru_next;
	e->lru_next->lru_prev = e->lru_prev;
}

static void
lru_push(struct sym_cache *c, struct sym_elf *e)
{
	e->lru_next = c->lru.lru_next;
	e->lru_prev = &c->lru;
	c->lru.lru_next->lru_prev = e;
	c->lru.lru_next = e;
}

struct sym_cache *
sym_cache_new(void)
{
	struct sym_cache *c = calloc(1, sizeof(*c));

	if (c)
		c->lru.lru_next = c->lru.lru_prev = &c->lru;
	return c;
}

static void
remove_entry(struct sym_cache *c, struct sym_elf *e)
{
	struct sym_elf **pp = &c->bucket[bucket_of(e->dev, e->ino)];

	while (*pp && *pp != e)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = e->hnext;
	lru_unlink(e);
	c->bytes -= e->bytes;
	c->count--;
	sym_elf_free(e);
}

void
sym_cache_free(struct sym_cache *c)
{
	if (c == NULL)
		return;
	while (c->lru.lru_next != &c->lru)
		remove_entry(c, c->lru.lru_next);
	free(c);
}

static bool
same_stamp(const struct sym_stamp *a, const struct sym_stamp *b)
{
	return a->ctime_ns == b->ctime_ns && a->mtime_ns == b->mtime_ns && a->size == b->size;
}

/* Newest first in a bucket (sym_cache_put pushes): a table of an older
 * file of the same (dev, ino) ages out unused. */
struct sym_elf *
sym_cache_get(struct sym_cache *c, dev_t dev, ino_t ino, const struct sym_stamp *stamp)
{
	struct sym_elf *e;

	for (e = c->bucket[bucket_of(dev, ino)]; e; e = e->hnext) {
		if (e->dev == dev && e->ino == ino && (stamp == NULL || same_stamp(&e->stamp, stamp))) {
			e->refs++;
			lru_unlink(e);
			lru_push(c, e);
			return e;
		}
	}
	return NULL;
}

void
sym_cache_put(struct sym_cache *c, struct sym_elf *e)
{
	unsigned b = bucket_of(e->dev, e->ino);

	e->hnext = c->bucket[b];
	c->bucket[b] = e;
	e->refs = 1;
	lru_push(c, e);
	c->bytes += e->bytes;
	c->count++;
}

void
sym_cache_unref(struct sym_cache *c, struct sym_elf *e)
{
	(void)c;
	if (e && e->refs > 0)
		e->refs--;
}

/* Names demangled since loading grow a table: bring the totals up to date. */
static void
reaccount(struct sym_cache *c)
{
	size_t total = 0;

	for (struct sym_elf *e = c->lru.lru_next; e != &c->lru; e = e->lru_next) {
		sym_elf_account(e);
		total += e->bytes;
	}
	c->bytes = total;
}

size_t
sym_cache_trim(struct sym_cache *c, size_t limit, uint64_t *evictions)
{
	struct sym_elf *e, *prev;

	reaccount(c);
	for (e = c->lru.lru_prev; e != &c->lru && c->bytes > limit; e = prev) {
		prev = e->lru_prev;
		if (e->refs == 0) {
			remove_entry(c, e);
			(*evictions)++;
		}
	}
	return c->bytes;
}

size_t
sym_cache_expire(struct sym_cache *c, uint64_t now_ns, uint64_t idle_ns, uint64_t *evictions)
{
	struct sym_elf *e, *next;
	size_t gone = 0;

	for (e = c->lru.lru_next; e != &c->lru; e = next) {
		next = e->lru_next;
		if (e->refs > 0 || e->used_ns == 0)
			e->used_ns = now_ns;
		else if (now_ns - e->used_ns > idle_ns) {
			remove_entry(c, e);
			(*evictions)++;
			gone++;
		}
	}
	return gone;
}

size_t
sym_cache_bytes(const struct sym_cache *c)
{
	return c->bytes;
}

struct sym_elf *
sym_cache_next(struct sym_cache *c, struct sym_elf *e)
{
	e = e ? e->lru_next : c->lru.lru_next;
	return e == &c->lru ? NULL : e;
}
