/*
 * many_threads - a process with very many threads (qa 032: an unprivileged
 * user's denial of service): N threads on small stacks that sleep, and a
 * few that spin so the process is sampled.  Each thread's stack is a
 * mapping with a guard page, so N threads make 2N mappings.
 *
 *   many_threads N SECONDS     prints how many threads it made, then lives
 */
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define SPINNERS	2

static volatile int	stop;

/* blocked for good: no wake-ups, the host is shared */
static void *
sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *
spinner(void *arg)
{
	volatile unsigned long	n = 0;

	(void)arg;
	while (!stop) {
		for (int i = 0; i < 500000; i++)
			n += i;
		usleep(20000);	/* a light load: the host is shared */
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int		want = argc > 1 ? atoi(argv[1]) : 1000, secs = argc > 2 ? atoi(argv[2]) : 10;
	int		made = 0;
	pthread_attr_t	attr;
	pthread_t	t;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 32 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < SPINNERS; i++)
		made += pthread_create(&t, &attr, spinner, NULL) == 0;
	while (made < want && pthread_create(&t, &attr, sleeper, NULL) == 0)
		made++;
	printf("threads: %d\n", made);
	fflush(stdout);
	sleep((unsigned)secs);
	stop = 1;
	return 0;
}
