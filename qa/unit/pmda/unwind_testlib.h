/*
 * unwind_testlib.h - what the agent does to unwind a process, for the
 * unit tests that need whole user stacks (test_unwind, test_offcpu): the
 * agent's unwinder (symbolizer -> unwind cache -> sampler) and describe(),
 * which hands a live process's mappings to the walker and waits for its
 * tables.
 */
#ifndef UNWIND_TESTLIB_H
#define UNWIND_TESTLIB_H

#include "unit.h"
#include "sampler/sampler.h"
#include "symbolizer/symbolize.h"
#include "unwind/unwind.h"
#include "agent/unwinder.h"

struct glue {
	struct sampler		*s;
	struct symbolizer	*sym;
	struct unwinder		*u;
	struct unwind_cache	*uc;	/* unwinder_cache(u) */
};

static bool
glue_open(struct glue *g, const struct unwind_config *cfg)
{
	g->u = unwinder_new(g->s, g->sym, cfg);
	g->uc = g->u ? unwinder_cache(g->u) : NULL;
	CHECK(g->u != NULL);
	return g->u != NULL;
}

/* Describe tgid to the walker, as the agent does, and wait for its tables. */
static void
describe(struct glue *g, pid_t tgid)
{
	CHECK_INT(unwinder_describe(g->u, tgid), 0);
	CHECK_INT(unwind_cache_settle(g->uc, 10000), 0);
}

#endif /* UNWIND_TESTLIB_H */
