/*
 * sym_debuginfod.c - which build-ids we want from debuginfod servers and
 * what became of them; the side the symbolizer calls from its own thread.
 *
 * A frame of a stripped file that could not be named queues the file's
 * build-id (sym_debuginfod_note_miss: one lock per table and generation,
 * never a wait).  Workers take queued build-ids, ask the servers and put
 * back a verified symbol table, or a failure that is not asked again for
 * retry_s.  sym_debuginfod_apply, called between drains, moves arrived
 * symbols into the waiting tables, so a name changes only from one
 * interval to the next and stacks already published stay as they were.
 * The queue between this side and the workers is sym_debuginfod_queue.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sym_debuginfod_priv.h"
#include "lib/clock.h"

#define DEFAULT_CACHE_MAX	(1ull << 30)
#define DEFAULT_FILE_MAX	(256ull << 20)
#define DEFAULT_FIRST_BYTE_MS	10000
#define DEFAULT_TOTAL_MS	120000
#define DEFAULT_RETRY_S		600

/* libdebuginfod reads its settings from the environment: one user a time */
static atomic_flag in_use = ATOMIC_FLAG_INIT;

static int
fill_config(struct dfd_config *out, const struct symbolizer_debuginfod_config *in)
{
	if (in == NULL || in->cache_dir == NULL || in->cache_dir[0] != '/' ||
	    strlen(in->cache_dir) >= sizeof(out->cache_dir) || in->workers > DFD_WORKERS_MAX)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	strcpy(out->cache_dir, in->cache_dir);
	out->cache_max_bytes = in->cache_max_bytes ? in->cache_max_bytes : DEFAULT_CACHE_MAX;
	out->file_max_bytes = in->file_max_bytes ? in->file_max_bytes : DEFAULT_FILE_MAX;
	if (out->file_max_bytes > out->cache_max_bytes)
		out->file_max_bytes = out->cache_max_bytes;
	out->first_byte_ns = (in->first_byte_ms ? in->first_byte_ms : DEFAULT_FIRST_BYTE_MS) * 1000000ull;
	out->total_ns = (in->total_ms ? in->total_ms : DEFAULT_TOTAL_MS) * 1000000ull;
	out->retry_ns = (in->retry_s ? in->retry_s : DEFAULT_RETRY_S) * 1000000000ull;
	out->workers = in->workers ? in->workers : 1;
	return 0;
}

struct sym_debuginfod *
sym_debuginfod_new(const struct symbolizer_debuginfod_config *cfg, int *err)
{
	struct sym_debuginfod *d = calloc(1, sizeof(*d));

	if (d == NULL) {
		*err = -ENOMEM;
		return NULL;
	}
	if ((*err = fill_config(&d->cfg, cfg)) < 0 ||
	    (*err = dfd_disk_prepare(&d->cfg)) < 0) {
		free(d);
		return NULL;
	}
	if (atomic_flag_test_and_set(&in_use)) {
		*err = -EBUSY;
		free(d);
		return NULL;
	}
	if ((*err = dfd_worker_env(&d->cfg)) < 0) {
		atomic_flag_clear(&in_use);
		free(d);
		return NULL;
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_mutex_init(&d->disk_lock, NULL);
	pthread_cond_init(&d->wake, NULL);
	d->cnt.cache_bytes = dfd_disk_trim(d->cfg.cache_dir, d->cfg.cache_max_bytes);
	/* libelf's one-time setup happens here, before any worker parses */
	sym_elf_free(sym_elf_empty());
	return d;
}

void
sym_debuginfod_free(struct sym_debuginfod *d)
{
	if (d == NULL)
		return;
	pthread_mutex_lock(&d->lock);
	atomic_store(&d->stop, true);
	pthread_cond_broadcast(&d->wake);
	pthread_mutex_unlock(&d->lock);
	dfd_workers_join(d);
	for (int i = 0; i < DFD_ENTRIES; i++)
		sym_elf_free(d->ent[i].parsed);
	pthread_cond_destroy(&d->wake);
	pthread_mutex_destroy(&d->disk_lock);
	pthread_mutex_destroy(&d->lock);
	free(d);
	atomic_flag_clear(&in_use);
}

static bool
urls_acceptable(const char *urls)
{
	size_t n = strnlen(urls, DFD_URLS_MAX + 1);

	if (n > DFD_URLS_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)urls[i] < 0x20 || urls[i] == 0x7f)
			return false;
	return true;
}

int
sym_debuginfod_set_urls(struct sym_debuginfod *d, const char *urls)
{
	int sts = 0;

	if (d == NULL || urls == NULL || !urls_acceptable(urls))
		return -EINVAL;
	pthread_mutex_lock(&d->lock);
	if (strcmp(urls, d->urls) == 0)
		goto out;
	/* threads first: if none can start, nothing has changed */
	if (urls[0] != '\0' && d->nthreads == 0 && (sts = dfd_workers_start(d)) < 0)
		goto out;
	strcpy(d->urls, urls);
	dfd_worker_set_urls(urls);
	atomic_fetch_add(&d->urls_gen, 1);	/* running requests give up */
	atomic_store(&d->on, urls[0] != '\0');
	for (int i = 0; i < DFD_ENTRIES; i++) {
		struct dfd_entry *en = &d->ent[i];
		/* new servers may have what the old ones did not; off drops the queue */
		if (en->state == DFD_FAILED || (en->state == DFD_QUEUED && urls[0] == '\0'))
			en->state = DFD_FREE;
	}
	pthread_cond_broadcast(&d->wake);
out:
	pthread_mutex_unlock(&d->lock);
	return sts;
}

static struct dfd_entry *
find_entry(struct sym_debuginfod *d, const uint8_t *id, int idlen)
{
	for (int i = 0; i < DFD_ENTRIES; i++) {
		struct dfd_entry *en = &d->ent[i];
		if (en->state != DFD_FREE && en->idlen == idlen && memcmp(en->id, id, idlen) == 0)
			return en;
	}
	return NULL;
}

/* A free slot, else the oldest failed or already taken entry; NULL when
 * every slot is queued, running or holds symbols not yet taken. */
static struct dfd_entry *
new_entry(struct sym_debuginfod *d)
{
	struct dfd_entry *victim = NULL;

	for (int i = 0; i < DFD_ENTRIES; i++) {
		struct dfd_entry *en = &d->ent[i];
		if (en->state == DFD_FREE)
			return en;
		if ((en->state == DFD_FAILED || (en->state == DFD_READY && en->parsed == NULL)) &&
		    (victim == NULL || en->seq < victim->seq))
			victim = en;
	}
	return victim;
}

static bool
eligible(const struct sym_elf *e)
{
	return e->build_id_len > 0 && e->nloads > 0 &&
	       (e->source == SYM_SRC_DYNSYM || e->source == SYM_SRC_NONE);
}

void
sym_debuginfod_note_miss(struct sym_debuginfod *d, struct sym_elf *e, unsigned gen)
{
	struct dfd_entry *en;

	if (d == NULL || e == NULL || e->dfd_wait || e->dfd_gen == gen || !eligible(e) ||
	    !atomic_load(&d->on))
		return;
	e->dfd_gen = gen;
	pthread_mutex_lock(&d->lock);
	if (d->urls[0] == '\0')
		goto out;
	if ((en = find_entry(d, e->build_id, e->build_id_len)) == NULL) {
		if ((en = new_entry(d)) == NULL)
			goto out;	/* full of work: asked again next generation */
		memcpy(en->id, e->build_id, e->build_id_len);
		en->idlen = e->build_id_len;
		dfd_enqueue(d, en);
	} else if (en->state == DFD_FAILED) {
		if (clock_mono_ns() < en->retry_ns)
			goto out;
		dfd_enqueue(d, en);
	} else if (en->state == DFD_READY && en->parsed == NULL) {
		dfd_enqueue(d, en);	/* taken by another table: a worker reads it again */
	}
	e->dfd_wait = true;
out:
	pthread_mutex_unlock(&d->lock);
}

size_t
sym_debuginfod_apply(struct sym_debuginfod *d, struct sym_cache *c)
{
	struct sym_elf *e;
	size_t changed = 0;

	if (d == NULL)
		return 0;
	pthread_mutex_lock(&d->lock);
	for (e = sym_cache_next(c, NULL); e; e = sym_cache_next(c, e)) {
		struct dfd_entry *en;
		if (!e->dfd_wait)
			continue;
		en = find_entry(d, e->build_id, e->build_id_len);
		if (en == NULL || en->state == DFD_FAILED) {
			e->dfd_wait = false;	/* forgotten (URLs changed) or failed */
		} else if (en->state == DFD_READY && en->parsed) {
			sym_elf_take_symbols(e, en->parsed, SYM_SRC_DEBUGINFOD);
			en->parsed = NULL;
			e->dfd_wait = false;
			d->cnt.named_files++;
			changed++;
		} else if (en->state == DFD_READY) {
			dfd_enqueue(d, en);
		}
	}
	/* every waiting table has had its chance: do not hold symbols no table takes */
	for (int i = 0; i < DFD_ENTRIES; i++) {
		sym_elf_free(d->ent[i].parsed);
		d->ent[i].parsed = NULL;
	}
	pthread_mutex_unlock(&d->lock);
	return changed;
}

void
sym_debuginfod_stats(struct sym_debuginfod *d, struct symbolizer_stats *st)
{
	if (d == NULL)
		return;
	pthread_mutex_lock(&d->lock);
	st->debuginfod = d->cnt;
	pthread_mutex_unlock(&d->lock);
}
