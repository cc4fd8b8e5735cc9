/*
 * pcp_priv.h - what the PCP face keeps between callbacks.  Private to
 * pmda/pcp/ (metrics.c, metrics_unwind.c, control.c).
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
		bool			have_sampler, have_heatmap;
		struct sampler_stats	sampler;
		uint64_t		heatmap[SP_HEATMAP_MAX_SLOTS];
	} snap;

	/* control.c: user id per client context (-1 = not told), refusals */
	int		*context_uid;
	int		ncontexts;
	uint64_t	bad_stores;
	uint64_t	denied_stores;
};

/* metrics_unwind.c: stackprof.stats.unwind_* of the table cache (items
 * ST_UNWIND_BUILDS..ST_UNWIND_PROCESS_ERRORS) */
int metrics_unwind_stat(const struct agent *a, unsigned item, pmAtomValue *atom);

#endif /* PCP_PRIV_H */
