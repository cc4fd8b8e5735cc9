/*
 * busy.c - a busy host for bench/archive-read: NPROC processes, each
 * walking call chains four deep through sixteen functions chosen by a
 * random walk, so that nearly every sample is a stack of its own (16^4
 * paths) and an archive gets about as many records per second as there
 * are samples.
 *
 *   busy SECONDS NPROC
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef unsigned long (*step_fn)(unsigned long state, int depth);

static step_fn	steps[16];
static volatile unsigned long sink;

static unsigned long
next(unsigned long state, int depth)
{
	unsigned long	i;

	state = state * 6364136223846793005UL + 1442695040888963407UL;
	if (depth == 0) {
		for (i = 0; i < 2000; i++)
			sink += i ^ state;
		return state;
	}
	return steps[(state >> 33) & 15](state, depth - 1);
}

#define STEP(n) \
	__attribute__((noinline)) static unsigned long \
	busy_step_##n(unsigned long s, int d) { unsigned long r = next(s, d); sink += n; return r; }
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15)

static void
run(double seconds, unsigned long seed)
{
	time_t		end = time(NULL) + (time_t)seconds;
	unsigned long	state = seed;

	while (time(NULL) < end)
		state = next(state, 4);
}

int
main(int argc, char **argv)
{
	double	seconds = argc > 1 ? atof(argv[1]) : 60;
	int	nproc = argc > 2 ? atoi(argv[2]) : 20, i;
	step_fn	all[16] = {
		busy_step_0, busy_step_1, busy_step_2, busy_step_3, busy_step_4, busy_step_5,
		busy_step_6, busy_step_7, busy_step_8, busy_step_9, busy_step_10, busy_step_11,
		busy_step_12, busy_step_13, busy_step_14, busy_step_15,
	};

	for (i = 0; i < 16; i++)
		steps[i] = all[i];
	for (i = 0; i < nproc; i++)
		if (fork() == 0) {
			run(seconds, (unsigned long)i * 7919 + 1);
			_exit(0);
		}
	while (wait(NULL) > 0)
		;
	return 0;
}
