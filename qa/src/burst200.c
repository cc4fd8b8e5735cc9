/*
 * burst200 - burn CPU only during the first 200 ms of every wall-clock
 * second and sleep for the rest, for SECONDS seconds (default 10).  Its
 * samples belong in the first 10 of 50 heat map slices.
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double
wall(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spin until 200 ms past the current second. */
static void
burn_first_200ms(double second)
{
	while (wall() < second + 0.2)
		sink++;
}

static void
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
