/*
 * stackprof_demo - the bundled demo workload with a known CPU split.
 *
 *   stackprof_demo [SECONDS]     (default 10)
 *
 * Two paths run the same code with a 3:1 amount of work:
 *   main;demo_heavy;{demo_exe_spin,[l] demo_lib_spin}   3 units
 *   main;demo_light;{demo_exe_spin,[l] demo_lib_spin}   1 unit
 * so any unbiased profiler sees demo_heavy take 75% of the process's
 * samples and demo_light 25%.  The two run in a pseudo-random order, each
 * half the time: a fixed heavy, light, heavy, light... pattern is periodic,
 * and a periodic sampler can lock onto its phase and skew the split.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLICE	20000UL	/* iterations per unit: a few tens of µs */

unsigned long demo_lib_spin(unsigned long iterations);

unsigned long
demo_exe_spin(unsigned long iterations)
{
	volatile unsigned long	acc = 0;
	unsigned long		i;

	for (i = 0; i < iterations; i++)
		acc += i ^ (acc >> 3);
	return acc;
}

unsigned long
demo_heavy(void)
{
	return demo_exe_spin(3 * SLICE) + demo_lib_spin(3 * SLICE);
}

unsigned long
demo_light(void)
{
	return demo_exe_spin(SLICE) + demo_lib_spin(SLICE);
}

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	double		seconds = argc > 1 ? atof(argv[1]) : 10.0;
	double		end = now() + seconds;
	unsigned long	sink = 0;
	unsigned long	state = 0x9E3779B97F4A7C15UL;	/* xorshift64, any non-zero seed */

	if (seconds <= 0) {
		fprintf(stderr, "usage: stackprof_demo [SECONDS]\n");
		return 2;
	}
	while (now() < end) {
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		sink += (state & 1) ? demo_heavy() : demo_light();
	}
	return sink == 42;	/* use the result so nothing is optimized away */
}
