/*
 * unwinder.c - the symbolizer's mappings and files into the unwind cache,
 * the cache's tables and arrays into the sampler (see unwinder.h).
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/pmapi.h>
#include "agent_priv.h"
#include "interp.h"
#include "unwinder.h"
#include "lib/array.h"

struct unwinder {
	struct sampler		*sampler;
	struct symbolizer	*sym;
	struct unwind_cache	*cache;
	struct interp		*interp;	/* interpreter records */
	enum sp_unwind_mode	mode;
	uint64_t		built;	/* builds finished at the last collect */
};

/* ---- the kernel: the sampler's maps ---- */

static int
k_table_add(void *arg, uint64_t base, const struct sp_unwind_row *rows, uint32_t n)
{
	return sampler_unwind_table_add(((struct unwinder *)arg)->sampler, base, rows, n);
}

static int
k_table_remove(void *arg, uint32_t id)
{
	return sampler_unwind_table_remove(((struct unwinder *)arg)->sampler, id);
}

static int
k_process_set(void *arg, pid_t tgid, const struct sp_unwind_mapping *m, uint32_t n)
{
	return sampler_unwind_set_process(((struct unwinder *)arg)->sampler, tgid, m, n);
}

static int
k_process_remove(void *arg, pid_t tgid)
{
	return sampler_unwind_remove_process(((struct unwinder *)arg)->sampler, tgid);
}

static const struct unwind_kernel_ops kernel_ops = {
	k_table_add, k_table_remove, k_process_set, k_process_remove,
};

/* ---- the files: the symbolizer opens them as the process sees them ---- */

static struct symbolizer_mapping
sym_mapping(const struct unwind_mapping *m)
{
	return (struct symbolizer_mapping){ .start = m->start, .end = m->end, .pgoff = m->pgoff,
					    .dev = m->dev, .ino = m->ino };
}

static int
s_open_file(void *arg, pid_t tgid, const struct unwind_mapping *m)
{
	struct symbolizer_mapping sm = sym_mapping(m);

	return symbolizer_open_mapping(((struct unwinder *)arg)->sym, tgid, &sm);
}

static int
s_read_image(void *arg, pid_t tgid, const struct unwind_mapping *m, void **image, size_t *len)
{
	struct symbolizer_mapping sm = sym_mapping(m);

	return symbolizer_read_vdso(((struct unwinder *)arg)->sym, tgid, &sm, image, len);
}

static const struct unwind_source_ops source_ops = { s_open_file, s_read_image };

/* ---- lifetime ---- */

struct unwinder *
unwinder_new(struct sampler *s, struct symbolizer *sym, const struct unwind_config *cfg)
{
	struct unwinder *u = calloc(1, sizeof(*u));
	struct unwind_config c = cfg ? *cfg : (struct unwind_config){ 0 };
	struct sampler_unwind_usage usage;

	if (!u)
		return NULL;
	u->sampler = s;
	u->sym = sym;
	u->mode = SP_UNWIND_AUTO;
	if (c.kernel_rows == 0) {	/* the share bound is of the sampler's row array */
		sampler_unwind_usage(s, &usage);
		c.kernel_rows = usage.rows_capacity;
	}
	if (!(u->interp = interp_new(s, sym)) ||
	    !(u->cache = unwind_cache_new(&c, &kernel_ops, u, &source_ops, u))) {
		interp_free(u->interp);
		free(u);
		return NULL;
	}
	return u;
}

void
unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	unwind_cache_free(u->cache);
	interp_free(u->interp);
	free(u);
}

int
unwinder_set_mode(struct unwinder *u, enum sp_unwind_mode mode)
{
	int err = sampler_set_unwind_mode(u->sampler, mode);

	if (err == 0)
		u->mode = mode;
	return err;
}

int
unwinder_fd(const struct unwinder *u)
{
	return unwind_cache_fd(u->cache);
}

void
unwinder_poll(struct unwinder *u)
{
	unwind_cache_poll(u->cache);
}

/* ---- processes ---- */

struct mapping_list {
	struct unwind_mapping	*m;
	size_t			n, cap;
	bool			nomem;
};

static enum unwind_map_kind
kind_of(enum symbolizer_map_kind k)
{
	return k == SYMBOLIZER_MAP_FILE ? UNWIND_MAP_FILE :
	       k == SYMBOLIZER_MAP_VDSO ? UNWIND_MAP_VDSO : UNWIND_MAP_OTHER;
}

static void
add_mapping(void *arg, const struct symbolizer_mapping *sm)
{
	struct mapping_list *l = arg;

	if (array_reserve(&l->m, &l->cap, l->n + 1) < 0) {
		l->nomem = true;
		return;
	}
	l->m[l->n++] = (struct unwind_mapping){
		.start = sm->start, .end = sm->end, .pgoff = sm->pgoff,
		.dev = sm->dev, .ino = sm->ino, .kind = kind_of(sm->kind),
	};
}

int
unwinder_describe(struct unwinder *u, pid_t tgid)
{
	struct mapping_list l = { 0 };
	int n, err;

	if (u->mode == SP_UNWIND_FP)
		return 0;
	n = symbolizer_mappings(u->sym, tgid, add_mapping, &l);
	if (n < 0 || l.nomem || l.n == 0) {
		free(l.m);
		return n < 0 ? n : l.nomem ? -ENOMEM : -ENOENT;
	}
	err = unwind_process_set(u->cache, tgid, l.m, l.n);
	free(l.m);
	if (err < 0)
		pmNotifyErr(LOG_WARNING, "unwind tables for pid %d: %s", (int)tgid, strerror(-err));
	else
		interp_describe(u->interp, tgid);
	return err;
}

void
unwinder_note_process(struct unwinder *u, pid_t tgid)
{
	if (u->mode != SP_UNWIND_FP && !unwind_process_seen(u->cache, tgid))
		unwinder_describe(u, tgid);
}

void
unwinder_on_exec(struct unwinder *u, pid_t tgid, bool selected)
{
	/* the old image's array must not outlive it */
	if (selected && u->mode != SP_UNWIND_FP)
		unwinder_describe(u, tgid);
	else
		unwind_process_forget(u->cache, tgid, true);
}

void
unwinder_on_maps(struct unwinder *u, pid_t tgid)
{
	if (u->mode == SP_UNWIND_FP || !unwind_process_known(u->cache, tgid))
		return;
	if (symbolizer_reread_mappings(u->sym, tgid) < 0)
		unwind_process_forget(u->cache, tgid, true);
	else
		unwinder_describe(u, tgid);
}

void
unwinder_on_retry(struct unwinder *u, pid_t tgid)
{
	if (u->mode != SP_UNWIND_FP && unwind_process_retry_due(u->cache, tgid))
		unwinder_on_maps(u, tgid);
}

void
unwinder_on_exit(struct unwinder *u, pid_t tgid)
{
	unwind_process_forget(u->cache, tgid, false);
}

void
unwinder_on_selection(struct unwinder *u, bool (*keep)(void *arg, pid_t tgid), void *arg)
{
	unwind_processes_select(u->cache, keep, arg);
}

/*
 * The builds' memory (libdw's, the rows') goes back to the system here,
 * once per drain and only after builds: malloc_trim walks every free
 * chunk of every arena (tens of ms on a fragmented heap of 60 MB), which
 * after every finished build stalled the main loop, and from the worker
 * held the main arena's lock against it.
 */
void
unwinder_collect(struct unwinder *u)
{
	struct unwind_stats st;

	unwind_cache_collect(u->cache);
	interp_collect(u->interp);
	unwind_cache_stats(u->cache, &st);
	if (st.builds + st.build_errors != u->built) {
		u->built = st.builds + st.build_errors;
		malloc_trim(0);
	}
}

void
unwinder_stats(const struct unwinder *u, struct unwind_stats *st)
{
	unwind_cache_stats(u->cache, st);
}

int
unwinder_set_interpreters(struct unwinder *u, bool on)
{
	return interp_set_enabled(u->interp, on);
}

struct unwind_cache *
unwinder_cache(struct unwinder *u)
{
	return u->cache;
}
