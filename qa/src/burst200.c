/*
 * burst200 - burn CPU only during the first 200 ms of every wall-clock
 * second and sleep for the rest, for SECONDS seconds (default 10).  Its
 * samples belong in the first 10 of 50 heat map slices.
 */
#include <stdlib.h>
#include "wallclock.h"

static volatile unsigned long sink;

/* Spin until 200 ms past the current second. */
static void
burn_first_200ms(double second)
{
	while (wall() < second + 0.2)
		sink++;
}

int
main(int argc, char **argv)
{
	int	seconds = argc > 1 ? atoi(argv[1]) : 10, i;
	double	s = (double)(long)wall() + 1;

	sleep_until(s);
	for (i = 0; i < seconds; i++, s += 1) {
		burn_first_200ms(s);
		sleep_until(s + 1);
	}
	return 0;
}
