/*
 * driver.c - the sampler alone, as pmdastackprof runs it: open at the given
 * rate, then every second drain, read the statistics and the heat map.
 * The callback only sums counts, so the CPU measured is the sampler's own
 * (BPF map reads and deletes), not symbolization.  Runs until SIGINT/TERM.
 *
 *   driver [-f HZ] [-n]      -n: select no process (the filtered fast path)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sampler/sampler.h"

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
sum_counts(void *arg, const struct sampled_stack *st)
{
	*(uint64_t *)arg += st->count;
}

int
main(int argc, char **argv)
{
	struct sampler_config cfg = { .frequency_hz = 99, .interval_ms = 1000, .heatmap_slots = 50 };
	struct sampler *s;
	struct sampler_stats st;
	uint64_t drained = 0, heat[50];
	bool select_none = false;
	int opt, err;

	while ((opt = getopt(argc, argv, "f:n")) != -1) {
		if (opt == 'f')
			cfg.frequency_hz = (unsigned)atoi(optarg);
		else if (opt == 'n')
			select_none = true;
		else {
			fprintf(stderr, "usage: %s [-f HZ] [-n]\n", argv[0]);
			return 2;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if ((err = sampler_open(&s, &cfg)) < 0) {
		fprintf(stderr, "sampler_open: %s\n", strerror(-err));
		return 1;
	}
	if (select_none && (err = sampler_set_filter(s, false, NULL, 0)) < 0) {
		fprintf(stderr, "sampler_set_filter: %s\n", strerror(-err));
		return 1;
	}
	while (!stop) {
		sleep(1);
		if ((err = sampler_drain(s, sum_counts, &drained)) < 0)
			fprintf(stderr, "sampler_drain: %s\n", strerror(-err));
		sampler_read_stats(s, &st);
		sampler_read_heatmap(s, heat, 50);
	}
	sampler_read_stats(s, &st);
	printf("drained %llu samples in %llu drains; samples %llu filtered %llu idle %llu "
	       "map_full %llu kcoll %llu ucoll %llu kmiss %llu umiss %llu\n",
	       (unsigned long long)drained, (unsigned long long)st.drains,
	       (unsigned long long)st.stat[SP_STAT_SAMPLES],
	       (unsigned long long)st.stat[SP_STAT_FILTERED],
	       (unsigned long long)st.stat[SP_STAT_IDLE],
	       (unsigned long long)st.stat[SP_STAT_MAP_FULL],
	       (unsigned long long)st.stat[SP_STAT_KSTACK_COLLISION],
	       (unsigned long long)st.stat[SP_STAT_USTACK_COLLISION],
	       (unsigned long long)st.stat[SP_STAT_KSTACK_MISSING],
	       (unsigned long long)st.stat[SP_STAT_USTACK_MISSING]);
	sampler_close(s);
	return 0;
}
