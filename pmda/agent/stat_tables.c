/*
 * stat_tables.c - the parts' stats tables and their handles (see
 * stat_tables.h).  A new table is a row here and its cluster in
 * pcp/pmid.h's list; test_stat_tables checks clusters, items and names
 * never clash.
 */
#include "agent_priv.h"
#include "controls.h"
#include "drain.h"
#include "pipeline/events.h"
#include "history/history.h"
#include "stat_tables.h"

static void *sampler_of(struct agent *a) { return a->sampler; }
static void *agent_of(struct agent *a) { return a; }
static void *symbolizer_of(struct agent *a) { return a->symbolizer; }
static void *history_of(struct agent *a) { return a->profiles[PROFILE_ONCPU].history; }
static void *events_of(struct agent *a) { return a->profiles[PROFILE_ONCPU].events; }

static void *
unwind_cache_of(struct agent *a)
{
	return a->unwinder ? unwinder_cache(a->unwinder) : NULL;
}

static const struct {
	const struct stat_table	*table;
	void			*(*handle)(struct agent *a);
} sources[] = {
	{ &sampler_stat_table, sampler_of },
	{ &drain_stat_table, agent_of },
	{ &control_stat_table, agent_of },
	{ &symbolizer_stat_table, symbolizer_of },
	{ &unwind_stat_table, unwind_cache_of },
	{ &history_stat_table, history_of },
	{ &events_stat_table, events_of },
};

#define NSOURCES	(sizeof(sources) / sizeof(sources[0]))

const struct stat_table *
agent_stat_table(size_t i)
{
	return i < NSOURCES ? sources[i].table : NULL;
}

void *
agent_stat_handle(struct agent *a, size_t i)
{
	return i < NSOURCES ? sources[i].handle(a) : NULL;
}
