/*
 * metrics_stats.c - stackprof.stats.*: the metrics of the parts' stats
 * tables (agent/stat_tables.h), one PMID cluster per table.  Each table's
 * snapshot is taken once per fetch PDU, at the first of its metrics, so
 * the figures of one fetch are of one moment and a BPF map is read once.
 */
#include <errno.h>
#include <stdlib.h>
#include "lib/stat_table.h"
#include "agent/stat_tables.h"
#include "pcp_priv.h"

struct stat_snap {
	void	*buf;
	int	sts;		/* the snapshot's */
	bool	have;		/* taken in this PDU */
};

size_t
metrics_stats_count(void)
{
	const struct stat_table	*t;
	size_t			i, n = 0;

	for (i = 0; (t = agent_stat_table(i)) != NULL; i++)
		n += t->nrows;
	return n;
}

static pmDesc
desc_of(const struct stat_table *t, const struct stat_def *d)
{
	static const pmUnits	units[] = {
		[STAT_NONE] = PMDA_PMUNITS(0, 0, 0, 0, 0, 0),
		[STAT_COUNT] = PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE),
		[STAT_BYTES] = PMDA_PMUNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0),
		[STAT_USEC] = PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_USEC, 0),
		[STAT_NSEC] = PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_NSEC, 0),
	};
	static const int	sems[] = {
		[STAT_COUNTER] = PM_SEM_COUNTER, [STAT_INSTANT] = PM_SEM_INSTANT,
		[STAT_DISCRETE] = PM_SEM_DISCRETE,
	};
	pmDesc	desc = { PMDA_PMID(t->cluster, d->item),
			 d->type == STAT_U32 ? PM_TYPE_U32 : PM_TYPE_U64,
			 PM_INDOM_NULL, sems[d->sem], units[d->units] };

	return desc;
}

void
metrics_stats_describe(pmdaMetric *m)
{
	const struct stat_table	*t;
	size_t			i, r;

	for (i = 0; (t = agent_stat_table(i)) != NULL; i++)
		for (r = 0; r < t->nrows; r++, m++)
			m->m_desc = desc_of(t, &t->rows[r]);
}

int
metrics_stats_init(struct pcp_face *face)
{
	const struct stat_table	*t;
	size_t			i, n = 0;

	while (agent_stat_table(n) != NULL)
		n++;
	if ((face->stat_snaps = calloc(n ? n : 1, sizeof(*face->stat_snaps))) == NULL)
		return -ENOMEM;
	face->nstat_snaps = n;
	for (i = 0; (t = agent_stat_table(i)) != NULL; i++)
		if ((face->stat_snaps[i].buf = calloc(1, t->snap_size)) == NULL)
			return -ENOMEM;	/* metrics_stats_free releases the rest */
	return 0;
}

void
metrics_stats_forget(struct pcp_face *face)
{
	size_t	i;

	for (i = 0; i < face->nstat_snaps; i++)
		face->stat_snaps[i].have = false;
}

/* The table of PMID cluster cluster, its index in *i; NULL if none. */
static const struct stat_table *
table_of(unsigned cluster, size_t *i)
{
	const struct stat_table	*t;

	for (*i = 0; (t = agent_stat_table(*i)) != NULL; (*i)++)
		if (t->cluster == cluster)
			return t;
	return NULL;
}

int
metrics_stats_fetch(struct pcp_face *face, unsigned cluster, unsigned item, pmAtomValue *atom)
{
	size_t			i, r;
	const struct stat_table	*t = table_of(cluster, &i);
	struct stat_snap	*s;

	if (t == NULL || i >= face->nstat_snaps)
		return PM_ERR_PMID;
	for (r = 0; r < t->nrows && t->rows[r].item != item; r++)
		;
	if (r == t->nrows)
		return PM_ERR_PMID;
	s = &face->stat_snaps[i];
	if (!s->have) {
		s->sts = t->snapshot(agent_stat_handle(face->agent, i), s->buf);
		s->have = true;
	}
	if (s->sts < 0)
		return PMDA_FETCH_NOVALUES;
	if (t->rows[r].type == STAT_U32)
		atom->ul = (uint32_t)stat_value(&t->rows[r], s->buf);
	else
		atom->ull = stat_value(&t->rows[r], s->buf);
	return PMDA_FETCH_STATIC;
}

void
metrics_stats_free(struct pcp_face *face)
{
	size_t	i;

	for (i = 0; i < face->nstat_snaps; i++)
		free(face->stat_snaps[i].buf);
	free(face->stat_snaps);
	face->stat_snaps = NULL;
	face->nstat_snaps = 0;
}
