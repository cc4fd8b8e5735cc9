/*
 * gen.c - the history values of a synthetic host, through the PMDA's own
 * history encoder (pmda/history/), for bench/archive-range/run.
 *
 *   gen SECONDS KEYFRAME_S START_EPOCH > stream
 *
 * One drain and one fetch a second.  20 threads (4 processes of 5) each
 * run a few of 1,500 stacks a second, picked by a fixed pseudo-random
 * sequence skewed towards the first ones (a few hot paths, a long tail).
 * A stack is 10-25 frames: a shared base, a module's, then functions of
 * a pool of 4,000 (programs' stacks are paths through shared code).
 * Every minute 1% of the stacks are replaced by new paths, as code paths
 * come and go; UNIQUE=1 gives every stack frames of its own instead (the
 * worst case for keyframes: every stack brings its own names).  The same arguments give the same content: a
 * 1-hour and a 24-hour run have the same per-second values.  Each value is
 * written as "SEC USEC LEN\n" then LEN bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "history/history.h"

#define THREADS		20
#define STACKS		1500
#define PER_THREAD	12	/* stacks a thread runs a second, at most */

static uint64_t	rng = 88172645463325252ull;

static uint64_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t
samples_us(uint64_t count, unsigned hz)
{
	return count * 1000000 / hz;
}

static int	unique;

/* Stack i of generation g: 10-25 frames, a shared base, its tail. */
static void
make_stack(char *buf, size_t len, unsigned i, unsigned g)
{
	unsigned	depth = 10 + (i * 7 + g) % 16, d;
	size_t		n = 0;

	for (d = 0; d < depth && n + 64 < len; d++) {
		if (d < 4)
			n += (size_t)snprintf(buf + n, len - n, "%s[l] base_%u", d ? ";" : "", d);
		else if (d < 8)
			n += (size_t)snprintf(buf + n, len - n, ";module_%u::path_%u", i % 37, d);
		else if (unique)
			n += (size_t)snprintf(buf + n, len - n, ";fn_%u_%u_g%u", i, d, g);
		else
			n += (size_t)snprintf(buf + n, len - n, ";fn_%u",
					      (i * 2654435761u + d * 40503u + g * 9973u) % 4000);
	}
}

int
main(int argc, char **argv)
{
	long		secs = argc > 1 ? atol(argv[1]) : 3600;
	unsigned	key = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
	long		start = argc > 3 ? atol(argv[3]) : 1767225600;
	static unsigned	gen[STACKS];
	struct history	*h = history_new(samples_us, 64 << 20);
	char		stack[2048], comm[16], proc[16];
	long		s;

	unique = getenv("UNIQUE") && strcmp(getenv("UNIQUE"), "1") == 0;
	if (h == NULL)
		return 1;
	history_set_keyframe(h, key);
	history_fetch(h, 0, &(const char *){ NULL }, &(size_t){ 0 });	/* starts the client */
	for (s = 0; s < secs; s++) {
		struct timeval	when = { start + s, 500000 };
		const char	*text;
		size_t		len;
		unsigned	t, k;

		if (s % 60 == 0)
			for (k = 0; k < STACKS / 100; k++)
				gen[next() % STACKS]++;
		history_begin(h, &when, 99, 1000 + s);
		for (t = 0; t < THREADS; t++) {
			unsigned	n = 1 + (unsigned)(next() % PER_THREAD);

			snprintf(comm, sizeof(comm), "worker%u", t % 5);
			snprintf(proc, sizeof(proc), "app%u", t / 5);
			for (k = 0; k < n; k++) {
				/* skewed: the product of two uniforms favours low ids */
				unsigned	i = (unsigned)((next() % STACKS) * (next() % STACKS) / STACKS);
				uint64_t	count = 1 + next() % 8;

				make_stack(stack, sizeof(stack), i, gen[i]);
				history_add(h, 1000 + (pid_t)(t / 5), 0, 2000 + (pid_t)t, comm, proc,
					    stack, count, samples_us(count, 99));
			}
		}
		history_end(h);
		if (history_fetch(h, 0, &text, &len) < 0)
			return 1;
		if (text == NULL)
			continue;
		printf("%ld %d %zu\n", (long)when.tv_sec, (int)when.tv_usec, len);
		fwrite(text, 1, len, stdout);
	}
	history_free(h);
	return fflush(stdout) == 0 ? 0 : 1;
}
