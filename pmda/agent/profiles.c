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

const struct profile_def profile_defs[NPROFILES] = {
	[PROFILE_ONCPU] = { "oncpu", "on-cpu", 1, PROFILE_UNIT_COUNT, profile_value_samples },
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
