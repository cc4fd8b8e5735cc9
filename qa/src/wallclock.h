/*
 * wallclock.h - wall-clock helpers for the qa workloads that pace their
 * work by the second (burst200, burst3): CLOCK_REALTIME, because the heat
 * map slices each wall-clock second.
 */
#ifndef WALLCLOCK_H
#define WALLCLOCK_H

#include <time.h>

static inline double
wall(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void
sleep_until(double t)
{
	struct timespec	ts;
	double		d = t - wall();

	if (d <= 0)
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

#endif /* WALLCLOCK_H */
