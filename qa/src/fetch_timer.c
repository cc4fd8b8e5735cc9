/*
 * fetch_timer - how long pmcd takes to answer a fetch, fetch after fetch,
 * through one context (so a client's own start-up is not counted):
 *
 *   fetch_timer METRIC SECONDS [PAUSE_MS]
 *
 * prints "fetches N errors E median_ms M max_ms X" and every fetch that
 * took over 100 ms on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <pcp/pmapi.h>

static double
now_ms(void)
{
	struct timespec	t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int
cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	const char	*name = argc > 1 ? argv[1] : "stackprof.oncpu.folded";
	double		end, *ms = NULL;
	int		pause_ms = argc > 3 ? atoi(argv[3]) : 20, n = 0, errors = 0, cap = 0, sts;
	pmID		pmid;
	pmResult	*r;

	if (argc < 3 || pmNewContext(PM_CONTEXT_HOST, "local:") < 0 ||
	    pmLookupName(1, (const char **)&name, &pmid) < 0) {
		fprintf(stderr, "usage: fetch_timer METRIC SECONDS [PAUSE_MS] (and pmcd running)\n");
		return 2;
	}
	end = now_ms() + atof(argv[2]) * 1e3;
	while (now_ms() < end) {
		double	t0 = now_ms();

		if ((sts = pmFetch(1, &pmid, &r)) < 0)
			errors++;
		else
			pmFreeResult(r);
		if (n == cap && (ms = realloc(ms, (cap = cap ? 2 * cap : 1024) * sizeof(*ms))) == NULL)
			return 2;
		ms[n] = now_ms() - t0;
		if (ms[n] > 100)
			fprintf(stderr, "fetch %d took %.1f ms\n", n, ms[n]);
		n++;
		usleep((useconds_t)pause_ms * 1000);
	}
	qsort(ms, (size_t)n, sizeof(*ms), cmp);
	printf("fetches %d errors %d median_ms %.1f max_ms %.1f\n", n, errors,
	       n ? ms[n / 2] : 0, n ? ms[n - 1] : 0);
	free(ms);
	return 0;
}
