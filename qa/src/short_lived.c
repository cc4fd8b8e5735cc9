/*
 * short_lived - a process that burns CPU briefly in short_lived_burn() and
 * exits, to check that stacks of processes that are gone by the time
 * anyone looks are still symbolized.
 *
 *   short_lived [MILLISECONDS]     (default 300)
 */
#include <stdlib.h>
#include <time.h>

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

unsigned long
short_lived_burn(double seconds)
{
	volatile unsigned long	acc = 0;
	double			end = now() + seconds;

	while (now() < end) {
		unsigned long	i;

		for (i = 0; i < 10000; i++)
			acc += i ^ (acc >> 3);
	}
	return acc;
}

int
main(int argc, char **argv)
{
	double	ms = argc > 1 ? atof(argv[1]) : 300.0;

	return short_lived_burn(ms / 1000.0) == 42;
}
