/*
 * pid_reuse - make the kernel give one PID to several processes in turn:
 * a child runs PROGRAM and exits, then the parent forks children that
 * exit at once until a fork returns that PID again, and the next child
 * with it runs PROGRAM.  For the instance-per-lifetime test (qa/041).
 *
 *   pid_reuse LIFETIMES PROGRAM [ARG...]
 *
 * Prints one line per run of PROGRAM: "lifetime N: pid P after F forks".
 * Exits 1 if the PID did not come round within three cycles of pid_max.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* fork; the child runs argv if it got PID want (or want is 0), else exits
 * at once; returns its pid */
static pid_t
spawn(pid_t want, char **argv)
{
	pid_t	pid = fork();

	if (pid == 0) {
		if (want == 0 || getpid() == want)
			execv(argv[0], argv);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

int
main(int argc, char **argv)
{
	int		lifetimes = argc > 1 ? atoi(argv[1]) : 0, n;
	long		pid_max = 32768, forks;
	FILE		*f = fopen("/proc/sys/kernel/pid_max", "r");
	pid_t		target, pid = 0;

	if (argc < 3 || lifetimes < 1) {
		fprintf(stderr, "usage: pid_reuse LIFETIMES PROGRAM [ARG...]\n");
		return 2;
	}
	if (f != NULL) {
		if (fscanf(f, "%ld", &pid_max) != 1)
			pid_max = 32768;
		fclose(f);
	}
	if ((target = spawn(0, argv + 2)) < 0) {
		perror("fork");
		return 1;
	}
	printf("lifetime 0: pid %d\n", (int)target);
	fflush(stdout);
	for (n = 1; n < lifetimes; n++) {
		for (forks = 1; forks <= 3 * pid_max; forks++)
			if ((pid = spawn(target, argv + 2)) == target || pid < 0)
				break;
		if (pid != target) {
			fprintf(stderr, "pid %d did not come round in %ld forks\n", (int)target,
				forks - 1);
			return 1;
		}
		printf("lifetime %d: pid %d after %ld forks\n", n, (int)pid, forks);
		fflush(stdout);
	}
	return 0;
}
