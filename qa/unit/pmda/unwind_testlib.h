/*
 * unwind_testlib.h - what the agent does to unwind a process, for the
 * unit tests that need whole user stacks (test_unwind, test_offcpu): the
 * sampler <- unwind cache <- symbolizer glue, and describe(), which hands
 * a live process's mappings to the walker and waits for its tables.
 */
#ifndef UNWIND_TESTLIB_H
#define UNWIND_TESTLIB_H

#include "unit.h"
#include "sampler/sampler.h"
#include "symbolizer/symbolize.h"
#include "unwind/unwind.h"

struct glue {
	struct sampler		*s;
	struct symbolizer	*sym;
	struct unwind_cache	*uc;
};

static int
k_table_add(void *arg, uint64_t base, const struct sp_unwind_row *rows, uint32_t n)
{
	return sampler_unwind_table_add(((struct glue *)arg)->s, base, rows, n);
}

static int
k_table_remove(void *arg, uint32_t id)
{
	return sampler_unwind_table_remove(((struct glue *)arg)->s, id);
}

static int
k_process_set(void *arg, pid_t tgid, const struct sp_unwind_mapping *m, uint32_t n)
{
	return sampler_unwind_set_process(((struct glue *)arg)->s, tgid, m, n);
}

static int
k_process_remove(void *arg, pid_t tgid)
{
	return sampler_unwind_remove_process(((struct glue *)arg)->s, tgid);
}

static const struct unwind_kernel_ops kops = {
	k_table_add, k_table_remove, k_process_set, k_process_remove,
};

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

	return symbolizer_open_mapping(((struct glue *)arg)->sym, tgid, &sm);
}

static int
s_read_image(void *arg, pid_t tgid, const struct unwind_mapping *m, void **image, size_t *len)
{
	struct symbolizer_mapping sm = sym_mapping(m);

	return symbolizer_read_vdso(((struct glue *)arg)->sym, tgid, &sm, image, len);
}

static const struct unwind_source_ops sops = { s_open_file, s_read_image };

struct mapping_list {
	struct unwind_mapping	m[512];
	size_t			n;
};

static void
add_mapping(void *arg, const struct symbolizer_mapping *sm)
{
	struct mapping_list *l = arg;

	if (l->n < 512)
		l->m[l->n++] = (struct unwind_mapping){
			.start = sm->start, .end = sm->end, .pgoff = sm->pgoff,
			.dev = sm->dev, .ino = sm->ino,
			.kind = sm->kind == SYMBOLIZER_MAP_FILE ? UNWIND_MAP_FILE :
				sm->kind == SYMBOLIZER_MAP_VDSO ? UNWIND_MAP_VDSO : UNWIND_MAP_OTHER,
		};
}

/* Describe tgid to the walker and wait for its tables. */
static void
describe(struct glue *g, pid_t tgid)
{
	struct mapping_list l = { .n = 0 };

	CHECK(symbolizer_mappings(g->sym, tgid, add_mapping, &l) > 0);
	CHECK_INT(unwind_process_set(g->uc, tgid, l.m, l.n), 0);
	CHECK_INT(unwind_cache_settle(g->uc, 10000), 0);
}

#endif /* UNWIND_TESTLIB_H */
