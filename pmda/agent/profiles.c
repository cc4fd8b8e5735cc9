/*
 * profiles.c - the profile table (see profiles.h).
 */
#include <stddef.h>
#include "profiles.h"

uint64_t
profile_value_samples(uint64_t count, unsigned hz)
{
	return hz ? count * 1000000u / hz : 0;
}

uint64_t
profile_value_count(uint64_t count, unsigned hz)
{
	(void)hz;
	return count;
}

/* Clusters 2 and 3 are the heat map's and the stats'. */
const struct profile_def profile_defs[NPROFILES] = {
	[PROFILE_ONCPU] = { "oncpu", "on-cpu", 1, PROFILE_UNIT_COUNT, profile_value_samples,
			    PROFILE_UNIT_USEC, true, SAMPLER_ONCPU },
	[PROFILE_OFFCPU] = { "offcpu", "off-cpu", 4, PROFILE_UNIT_USEC, profile_value_count,
			     PROFILE_UNIT_USEC, false, SAMPLER_OFFCPU },
	[PROFILE_PAGEFAULT] = { "pagefault", "page-fault", 5, PROFILE_UNIT_COUNT,
				profile_value_count, PROFILE_UNIT_COUNT, false, SAMPLER_PAGEFAULT },
	/* off-CPU blocks with their wakers' frames (drain_fold_stack) */
	[PROFILE_OFFWAKE] = { "offwake", "off-wake", 6, PROFILE_UNIT_USEC, profile_value_count,
			      PROFILE_UNIT_USEC, false, SAMPLER_OFFWAKE },
};

const struct profile_def *
profile_by_cluster(unsigned cluster)
{
	size_t	i;

	for (i = 0; i < NPROFILES; i++)
		if (profile_defs[i].cluster == cluster)
			return &profile_defs[i];
	return NULL;
}
