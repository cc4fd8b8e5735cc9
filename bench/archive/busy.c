/*
 * busy.c - a busy host for bench/archive: many processes, each running
 * its own set of call paths, so that a sampler at 1000 Hz sees hundreds
 * of distinct stacks every second (a finite working set, as a server's
 * request types are, not a new stack per sample).
 *
 *   busy NPROCS PATHS SECONDS
 *
 * Each of NPROCS processes draws PATHS paths of 3-10 calls among 16
 * functions from its own seed and runs them in random order until
 * SECONDS have passed.  Built with frame pointers so every frame shows.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#define MAXDEPTH	10

struct path {
	int	n;
	int	fn[MAXDEPTH];
};

typedef uint64_t (*step_fn)(const struct path *p, int i, uint64_t x);
static step_fn	steps[16];

static uint64_t
next(const struct path *p, int i, uint64_t x)
{
	int	k;

	if (i < p->n)
		return steps[p->fn[i]](p, i + 1, x);
	for (k = 0; k < 20000; k++)	/* the leaf's work: ~20 µs */
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

#define STEP(N) \
	__attribute__((noinline)) static uint64_t \
	busy_step_##N(const struct path *p, int i, uint64_t x) \
	{ return next(p, i, x ^ N) + 1; }
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15)

static uint32_t
rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return (uint32_t)(*s >> 33);
}

static void
work(unsigned seed, int npaths, double secs)
{
	struct path	*paths = calloc((size_t)npaths, sizeof(*paths));
	uint64_t	s = seed * 0x9E3779B97F4A7C15u + 1, x = 0;
	time_t		end = time(NULL) + (time_t)secs;
	int		i, j;

	if (paths == NULL)
		exit(1);
	for (i = 0; i < npaths; i++) {
		paths[i].n = 3 + (int)(rnd(&s) % (MAXDEPTH - 2));
		for (j = 0; j < paths[i].n; j++)
			paths[i].fn[j] = (int)(rnd(&s) % 16);
	}
	while (time(NULL) < end)
		for (i = 0; i < 1000; i++)
			x += next(&paths[rnd(&s) % (uint32_t)npaths], 0, x);
	printf("%llu\n", (unsigned long long)(x & 1));
	exit(0);
}

int
main(int argc, char **argv)
{
	step_fn	all[16] = {
		busy_step_0, busy_step_1, busy_step_2, busy_step_3, busy_step_4,
		busy_step_5, busy_step_6, busy_step_7, busy_step_8, busy_step_9,
		busy_step_10, busy_step_11, busy_step_12, busy_step_13, busy_step_14,
		busy_step_15,
	};
	int	nprocs, npaths, i;
	double	secs;

	if (argc != 4 || (nprocs = atoi(argv[1])) <= 0 || (npaths = atoi(argv[2])) <= 0 ||
	    (secs = atof(argv[3])) <= 0) {
		fprintf(stderr, "usage: busy NPROCS PATHS SECONDS\n");
		return 2;
	}
	for (i = 0; i < 16; i++)
		steps[i] = all[i];
	for (i = 0; i < nprocs; i++)
		if (fork() == 0)
			work((unsigned)i + 1, npaths, secs);
	while (wait(NULL) > 0)
		;
	return 0;
}
