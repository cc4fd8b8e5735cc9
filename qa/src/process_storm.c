/*
 * process_storm - start COUNT short-lived processes, evenly over SECONDS
 * seconds, each running PROGRAM ARGS... (e.g. short_lived 3), and reap
 * them.  Prints how many were started, how many exited 0, and the wall
 * time, so a test knows the storm it got.
 *
 *   process_storm COUNT SECONDS PROGRAM [ARGS...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "wallclock.h"

static int	ok;

static void
reap(int block)
{
	int	status;

	while (waitpid(-1, &status, block ? 0 : WNOHANG) > 0)
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ok++;
}

int
main(int argc, char **argv)
{
	int	count, started = 0, i;
	double	seconds, t0, gap;

	if (argc < 4) {
		fprintf(stderr, "usage: process_storm COUNT SECONDS PROGRAM [ARGS...]\n");
		return 2;
	}
	count = atoi(argv[1]);
	seconds = atof(argv[2]);
	gap = seconds / count;
	t0 = wall();
	for (i = 0; i < count; i++) {
		pid_t	pid;

		sleep_until(t0 + i * gap);
		if ((pid = fork()) == 0) {
			execv(argv[3], argv + 3);
			_exit(127);
		}
		if (pid > 0)
			started++;
		reap(0);
	}
	reap(1);
	printf("started %d, exited 0: %d, in %.1f s\n", started, ok, wall() - t0);
	return started == count && ok == count ? 0 : 1;
}
