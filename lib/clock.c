/*
 * clock.c - the clocks (see clock.h).
 */
#include <time.h>
#include "clock.h"

static uint64_t
ns_of(clockid_t clock)
{
	struct timespec	ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t
clock_mono_ns(void)
{
	return ns_of(CLOCK_MONOTONIC);
}

uint64_t
clock_real_ns(void)
{
	return ns_of(CLOCK_REALTIME);
}
