/*
 * burst3 SECONDS START - for SECONDS seconds do a little work every second
 * (100 ms in steady_work), except for one 3-second CPU burst, all in
 * three_second_burst, from START seconds after the first whole second.
 * Prints the burst's wall-clock start second, so a test can select it.
 */
#include <stdio.h>
#include <stdlib.h>
#include "wallclock.h"

static volatile unsigned long sink;

static void
spin_until(double t)
{
	while (wall() < t)
		sink++;
}

static void
steady_work(double until)
{
	spin_until(until);
}

static void
three_second_burst(double until)
{
	spin_until(until);
}

int
main(int argc, char **argv)
{
	int	seconds = argc > 1 ? atoi(argv[1]) : 12;
	int	start = argc > 2 ? atoi(argv[2]) : 4, i;
	double	s0 = (double)(long)wall() + 1;

	printf("%ld\n", (long)s0 + start);
	fflush(stdout);
	sleep_until(s0);
	for (i = 0; i < seconds; i++) {
		double s = s0 + i;

		if (i == start) {
			three_second_burst(s + 3);
			i += 2;
			continue;
		}
		steady_work(s + 0.1);
		sleep_until(s + 1);
	}
	return 0;
}
