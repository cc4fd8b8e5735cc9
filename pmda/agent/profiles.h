/*
 * profiles.h - the profiles the PMDA publishes, one row each.
 *
 * A row names a profile's metrics (stackprof.NAME.*, PMID cluster), the
 * .type of its records, what its counts measure and how they turn into
 * microseconds.  Each row gets the same objects (event queue, history,
 * window) from agent.c and the same metrics from pcp/metrics.c: a new
 * profile (off-CPU, page faults) is a row here, its drain, and its
 * entries in help/pmns and help/help.
 */
#ifndef PROFILES_H
#define PROFILES_H

#include <stdbool.h>
#include <stdint.h>
#include "sampler/sampler.h"
#include "pipeline/events.h"
#include "history/history.h"
#include "pipeline/window.h"

enum profile_id { PROFILE_ONCPU, PROFILE_OFFCPU, PROFILE_PAGEFAULT, PROFILE_OFFWAKE, NPROFILES };

/* What a count is: samples (on-CPU), µs (off-CPU), events (page faults). */
enum profile_unit { PROFILE_UNIT_COUNT, PROFILE_UNIT_USEC };
/* What the records' .value is: µs (on-CPU, off-CPU) or events (page faults). */

struct profile_def {
	const char	*name;		/* "oncpu": stackprof.oncpu.* */
	const char	*type;		/* "on-cpu": .type of its records */
	unsigned	cluster;	/* PMID cluster of stackprof.NAME.* */
	enum profile_unit count_unit;
	history_value_fn value;		/* .value of count at a sampling rate */
	enum profile_unit value_unit;	/* what .value is */
	bool		sampled;	/* counts are samples of the on-CPU clock: the
					 * drain's rate is the history's hz; else hz is
					 * 10^6, so that count * 10^6 / hz = count */
	enum sampler_profile source;	/* whose stacks the sampler hands over */
};

extern const struct profile_def profile_defs[NPROFILES];

/* The row whose metrics are in PMID cluster cluster, or NULL. */
const struct profile_def *profile_by_cluster(unsigned cluster);

/* What one profile publishes (owned by the agent). */
struct profile {
	const struct profile_def *def;
	struct event_queue *events;	/* stackprof.NAME.stacks */
	struct history	*history;	/* stackprof.NAME.history */
	struct stack_window *window;	/* .folded, .samples */
};

/* µs of count samples at hz: count * 10^6 / hz (the records' .value rule). */
uint64_t profile_value_samples(uint64_t count, unsigned hz);
/* count itself: off-CPU counts are µs already, page-fault counts faults. */
uint64_t profile_value_count(uint64_t count, unsigned hz);

#endif /* PROFILES_H */
