/*
 * offcpu_known - threads that wait, spin and fault in known functions, for
 * the off-CPU and page-fault profiles (qa/060).
 *
 *   offcpu_known [SECONDS]     (default 6)
 *
 * Five threads, each named for what it does (comm):
 *   sleeper  nanosleep(10 ms) in a loop in wait_in_sleep: blocked for about
 *            all its wall time
 *   reader   one read() of a pipe in wait_in_pipe, written when the others
 *            are done: blocked for the whole run
 *   waiter   FUTEX_WAIT on a word nobody wakes, 5 ms at a time, in
 *            wait_in_futex: blocked for about all its wall time
 *   spinner  spins in spin_here: preempted at most, never asleep
 *   toucher  writes fresh pages in touch_pages (mmap, write each page,
 *            munmap, again)
 * They start after a second (see main).  At the end it prints, for each thread, its wall time in microseconds
 * from the moment it started waiting ("sleeper_us 6001234"), and the
 * toucher's minor faults as the kernel counted them ("toucher_faults N").
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TOUCH_BYTES	(16UL << 20)

static double seconds = 6;
static int pipefd[2];
static volatile int stop;
static volatile unsigned long sink;
static long sleeper_us, reader_us, waiter_us;
static int futex_word;
static long toucher_faults;

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void
wait_in_sleep(double end)
{
	struct timespec	ten_ms = { 0, 10000000 };

	while (now() < end)
		nanosleep(&ten_ms, NULL);
}

static void *
sleeper(void *arg)
{
	double	t0 = now();

	(void)arg;
	prctl(PR_SET_NAME, "sleeper");
	wait_in_sleep(t0 + seconds);
	sleeper_us = (long)((now() - t0) * 1e6);
	return NULL;
}

void
wait_in_pipe(void)
{
	char	c;

	sink += (unsigned long)read(pipefd[0], &c, 1);
}

static void *
reader(void *arg)
{
	double	t0 = now();

	(void)arg;
	prctl(PR_SET_NAME, "reader");
	wait_in_pipe();
	reader_us = (long)((now() - t0) * 1e6);
	return NULL;
}

void
wait_in_futex(double end)
{
	struct timespec	five_ms = { 0, 5000000 };

	while (now() < end)
		syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &five_ms, NULL, 0);
}

static void *
waiter(void *arg)
{
	double	t0 = now();

	(void)arg;
	prctl(PR_SET_NAME, "waiter");
	wait_in_futex(t0 + seconds);
	waiter_us = (long)((now() - t0) * 1e6);
	return NULL;
}

void
spin_here(void)
{
	while (!stop)
		sink = sink * 2654435761u + 1;
}

static void *
spinner(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "spinner");
	spin_here();
	return NULL;
}

void
touch_pages(void)
{
	while (!stop) {
		char	*p = mmap(NULL, TOUCH_BYTES, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t	i;

		if (p == MAP_FAILED)
			return;
		for (i = 0; i < TOUCH_BYTES; i += 4096)
			p[i] = 1;
		munmap(p, TOUCH_BYTES);
		usleep(20000);	/* leave the CPU to the others */
	}
}

static void *
toucher(void *arg)
{
	struct rusage	ru;

	(void)arg;
	prctl(PR_SET_NAME, "toucher");
	touch_pages();
	getrusage(RUSAGE_THREAD, &ru);
	toucher_faults = ru.ru_minflt;
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t	t[5];

	if (argc > 1)
		seconds = atof(argv[1]);
	if (pipe(pipefd) < 0)
		return 1;
	/* the agent builds this process's unwind tables when it sees it
	 * first; until they are loaded, user stacks through libc (no frame
	 * pointers) stop in libc, and the reader's only sleep starts at once */
	sleep(1);
	pthread_create(&t[0], NULL, sleeper, NULL);
	pthread_create(&t[1], NULL, reader, NULL);
	pthread_create(&t[2], NULL, spinner, NULL);
	pthread_create(&t[3], NULL, toucher, NULL);
	pthread_create(&t[4], NULL, waiter, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[4], NULL);
	stop = 1;
	pthread_join(t[2], NULL);
	pthread_join(t[3], NULL);
	if (write(pipefd[1], "x", 1) != 1)
		return 1;
	pthread_join(t[1], NULL);
	printf("sleeper_us %ld\nreader_us %ld\nwaiter_us %ld\ntoucher_faults %ld\n",
	       sleeper_us, reader_us, waiter_us, toucher_faults);
	return 0;
}
