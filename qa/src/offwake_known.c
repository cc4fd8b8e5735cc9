/*
 * offwake_known - a producer wakes a consumer, for the off-wake profile
 * (qa/062, qa/063).
 *
 *   offwake_known pipe|mutex [SECONDS]     (default 6)
 *
 * Two threads, named for what they do (comm):
 *   pipe:  the consumer reads one byte at a time from a pipe in
 *          consume_pipe; the producer sleeps 5 ms, then writes one byte in
 *          produce_pipe.  Every wait of the consumer ends with the
 *          producer's write.
 *   mutex: the producer holds a mutex 5 ms at a time (asleep, in
 *          hold_lock) and unlocks it in produce_unlock, then leaves it
 *          free 300 us; the consumer takes and drops it in consume_lock in
 *          a loop.  Every long wait of the consumer ends with the
 *          producer's unlock.
 * They start after a second (see main).  At the end it prints the
 * consumer's wall time in microseconds and how many bytes or locks it got
 * ("consumer_us 6001234", "consumer_got 1187").
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double seconds = 6;
static int pipefd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static long consumer_us, consumer_got;

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
sleep_us(long us)
{
	struct timespec	ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

void
produce_pipe(void)
{
	if (write(pipefd[1], "x", 1) != 1)
		stop = 1;
}

void
consume_pipe(void)
{
	char	c;

	if (read(pipefd[0], &c, 1) == 1 && c == 'x')
		consumer_got++;
}

void
hold_lock(void)
{
	sleep_us(5000);
}

void
produce_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

void
consume_lock(void)
{
	pthread_mutex_lock(&lock);
	consumer_got++;
	pthread_mutex_unlock(&lock);
}

static int mutex_mode;

static void *
producer(void *arg)
{
	double	end = now() + seconds;

	(void)arg;
	prctl(PR_SET_NAME, "producer");
	while (now() < end && !stop) {
		if (mutex_mode) {
			pthread_mutex_lock(&lock);
			hold_lock();
			produce_unlock();
			sleep_us(300);
		} else {
			sleep_us(5000);
			produce_pipe();
		}
	}
	stop = 1;
	if (!mutex_mode && write(pipefd[1], "e", 1) != 1)	/* the consumer's last read */
		return NULL;
	return NULL;
}

static void *
consumer(void *arg)
{
	double	t0 = now();

	(void)arg;
	prctl(PR_SET_NAME, "consumer");
	while (!stop) {
		if (mutex_mode)
			consume_lock();
		else
			consume_pipe();
	}
	consumer_us = (long)((now() - t0) * 1e6);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t	t[2];

	if (argc < 2 || (strcmp(argv[1], "pipe") != 0 && strcmp(argv[1], "mutex") != 0)) {
		fprintf(stderr, "usage: offwake_known pipe|mutex [SECONDS]\n");
		return 2;
	}
	mutex_mode = strcmp(argv[1], "mutex") == 0;
	if (argc > 2)
		seconds = atof(argv[2]);
	if (pipe(pipefd) < 0)
		return 1;
	/* the agent builds this process's unwind tables when it sees it
	 * first; until they are loaded, user stacks through libc stop there */
	sleep(1);
	pthread_create(&t[0], NULL, consumer, NULL);
	pthread_create(&t[1], NULL, producer, NULL);
	pthread_join(t[1], NULL);
	pthread_join(t[0], NULL);
	printf("consumer_us %ld\nconsumer_got %ld\n", consumer_us, consumer_got);
	return 0;
}
