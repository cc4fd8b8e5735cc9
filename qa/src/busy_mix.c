/*
 * busy_mix SECONDS SEED - the load of a busy host, for the heat-map scale
 * tests: for SECONDS seconds, each 20 ms slice (a heat-map cell at 50
 * slots) is busy for 0, 25, 50, 75 or 100% of it, drawn from SEED, so the
 * cells' counts cover the scale.  Pure spinners give a quiet host only two
 * or three distinct counts per cell, too few for a scale to show.
 */
#include <stdlib.h>
#include "wallclock.h"

static volatile unsigned long sink;

static void
spin_until(double t)
{
	while (wall() < t)
		sink++;
}

int
main(int argc, char **argv)
{
	int		seconds = argc > 1 ? atoi(argv[1]) : 10;
	unsigned	seed = argc > 2 ? (unsigned)atoi(argv[2]) : 1;
	double		t = (double)(long)wall() + 1, end = t + seconds;

	srand(seed);
	sleep_until(t);
	for (; t < end; t += 0.02) {
		spin_until(t + 0.005 * (rand() % 5));
		sleep_until(t + 0.02);
	}
	return 0;
}
