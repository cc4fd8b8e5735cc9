/*
 * pcp_priv.h - what the PCP face keeps between callbacks.  Private to
 * pmda/pcp/ (metrics.c, metrics_stats.c, control.c).
 *
 * One struct pcp_face per pmdaInterface, hung on it with pmdaExtSetData:
 * every callback that libpcp_pmda hands a pmdaExt reaches the agent
 * through it, and the fetch callback through each metric's m_user.
 */
#ifndef PCP_PRIV_H
#define PCP_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "agent/agent.h"
#include "pmid.h"

struct pcp_face {
	struct agent	*agent;
	pmdaIndom	indoms[INDOM_FLAME + NPROFILES];	/* by enum metric_indom */
	pmdaInstid	*flame_instances[NPROFILES];
	pmdaMetric	*metrics;
	int		nmetrics;
	pmdaInstid	*proc_instances;
	pmdaInstid	*slot_instances;
	char		(*slot_names)[8];
	unsigned	nslots;			/* what slot_instances describe */

	/* values read from BPF maps once per fetch PDU, not once per metric */
	struct {
		bool			have_heatmap;
		uint64_t		heatmap[SP_HEATMAP_MAX_SLOTS];
	} snap;
	/* metrics_stats.c: each stats table's snapshot, by table */
	struct stat_snap *stat_snaps;
	size_t		nstat_snaps;

	/* control.c: user id per client context (-1 = not told) */
	int		*context_uid;
	int		ncontexts;
};

/* metrics_stats.c: stackprof.stats.*, the rows of the parts' stats tables
 * (agent/stat_tables.h).  describe fills metrics_stats_count() metrics;
 * forget starts a fetch PDU; fetch answers PM_ERR_PMID when no table
 * holds (cluster, item). */
size_t metrics_stats_count(void);
void metrics_stats_describe(pmdaMetric *m);
int metrics_stats_init(struct pcp_face *face);
void metrics_stats_forget(struct pcp_face *face);
int metrics_stats_fetch(struct pcp_face *face, unsigned cluster, unsigned item,
			pmAtomValue *atom);
void metrics_stats_free(struct pcp_face *face);

#endif /* PCP_PRIV_H */
