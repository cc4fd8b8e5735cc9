/*
 * synth.c - a synthetic profile of SECONDS seconds at 1 s fetches, fed
 * through the same code path pmflame uses (heatmap_add_counters on
 * cumulative per-slice counters, heatmap_add_folded per second, then
 * emit_heatmap), timed, and written to OUT.  The peer, built in the same run
 * from the same matrix, is the obvious vector encoding: one <rect> with a
 * <title> per cell, flamegraph.pl style.
 *
 *   synth [-n|-x] SECONDS OUT.svg [PEER.svg]
 *	-n: counters only, no stacks
 *	-x: one process and one leaf frame carry markup and script text (qa/406)
 *
 * The load imitates a busy 2-CPU host at 99 Hz: a burst in the first 200 ms
 * of every second, a 300 ms stall every 10 s, noise elsewhere, and stacks
 * drawn from a pool of 4000 distinct stacks 8-32 frames deep.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "emit/emit.h"
#include "emit/emit_heatmap.h"
#include "profile/heatmap.h"

#define SLICES		50
#define POOL		4000

static uint64_t rng = 88172645463325252ULL;
static int hostile;

#define HOSTILE_PROCESS	"<img src=x onerror=alert(1)>"
#define HOSTILE_FRAME	"</sp:f><script>alert(2)</script>&\"x\""

static uint64_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Samples per slice in second s: 2 CPUs x 99 Hz spread over 50 slices. */
static unsigned
load(int s, unsigned slice)
{
	if (s % 10 == 3 && slice >= 20 && slice < 35)
		return 0;				/* stall */
	if (slice < 10)
		return 3 + next() % 2;			/* burst: both CPUs busy */
	return next() % 4 == 0 ? 1 + next() % 2 : 0;	/* noise */
}

static char **
make_pool(void)
{
	static const char *lib[] = { "[k] do_syscall_64", "[k] entry_SYSCALL_64", "[l] __libc_start_main",
				     "[l] malloc", "[k] __x64_sys_read", "[k] schedule" };
	char	**pool = calloc(POOL, sizeof(*pool));
	char	buf[2048];
	int	i, d, depth;

	for (i = 0; pool && i < POOL; i++) {
		int n = hostile && i % 5 == 4 ?
			snprintf(buf, sizeof(buf), HOSTILE_PROCESS ";[t] worker-%d", i % 13) :
			snprintf(buf, sizeof(buf), "app%d;[t] worker-%d", i % 5, i % 13);
		depth = 8 + (int)(next() % 25);
		for (d = 0; d < depth; d++)
			n += snprintf(buf + n, sizeof(buf) - n, ";%s%d",
				      d % 4 == 3 ? lib[(i + d) % 6] : "module::function_", (i * 7 + d * 13) % 900);
		if (hostile && i % 7 == 3)
			snprintf(buf + n, sizeof(buf) - n, ";" HOSTILE_FRAME);
		pool[i] = strdup(buf);
	}
	return pool;
}

/* Like the PMDA: samples of a second aggregated per distinct stack, one
 * record per stack and second. */
static void
build(struct heatmap *hm, int seconds, char **pool, int stacks)
{
	uint64_t	cum[SLICES] = { 0 };
	static unsigned	per[POOL];
	double		t0 = 1764000000.37;	/* fetches at a non-aligned offset */
	int		s;
	unsigned	i, k, n;

	heatmap_add_counters(hm, t0, cum, SLICES);
	for (s = 0; s < seconds; s++) {
		for (i = 0, n = 0; i < SLICES; i++) {
			unsigned c = load(s, i);
			cum[i] += c;
			n += c;
		}
		heatmap_add_counters(hm, t0 + s + 1, cum, SLICES);
		memset(per, 0, sizeof(per));
		for (k = 0; stacks && k < n; k++) {
			uint64_t r = next() % POOL;
			per[r * r / POOL]++;		/* skewed: a few hot stacks */
		}
		for (k = 0; k < POOL; k++)
			if (per[k])
				heatmap_add_folded(hm, (int64_t)t0 + s, pool[k], per[k]);
	}
	heatmap_finish(hm);
}

/* The peer: every cell an element with its own tooltip. */
static void
rect_per_cell(const struct heatmap *hm, struct membuf *out)
{
	size_t		c;
	unsigned	r;
	uint64_t	max = heatmap_max_cell(hm);

	membuf_printf(out, "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\""
		      " height=\"%u\">\n", hm->ncols * 2, hm->rows * 8);
	for (c = 0; c < hm->ncols; c++)
		for (r = 0; r < hm->rows; r++)
			membuf_printf(out, "<rect x=\"%zu\" y=\"%u\" width=\"2\" height=\"8\" fill-opacity=\"%.2f\">"
				      "<title>%" PRId64 " +%u ms: %" PRIu64 "</title></rect>\n",
				      c * 2, (hm->rows - 1 - r) * 8,
				      max ? (double)heatmap_cell(hm, c, r) / max : 0.0,
				      hm->first_sec + (int64_t)c, r * 20, heatmap_cell(hm, c, r));
	membuf_puts(out, "</svg>\n");
}

static int
write_file(const char *path, const struct membuf *b)
{
	FILE	*f = fopen(path, "w");

	if (f == NULL || fwrite(b->data, 1, b->len, f) != b->len || fclose(f) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct heatmap			hm;
	struct heatmap_emit_options	o = { "Synthetic profile", "2 CPUs at 99 Hz, 50 slices", 1200 };
	struct membuf			svg, peer;
	char				**pool;
	double				t0, t1, t2, t3;
	int				seconds, stacks = 1;

	if (argc > 1 && (strcmp(argv[1], "-n") == 0 || strcmp(argv[1], "-x") == 0)) {
		stacks = argv[1][1] != 'n';
		hostile = argv[1][1] == 'x';
		argv++;
		argc--;
	}
	if (argc < 3 || (seconds = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: synth [-n|-x] SECONDS OUT.svg [PEER.svg]\n");
		return 2;
	}
	pool = make_pool();
	membuf_init(&svg);
	membuf_init(&peer);
	heatmap_init(&hm, SLICES);
	t0 = now();
	build(&hm, seconds, pool, stacks);
	t1 = now();
	if (emit_heatmap(&hm, &o, &svg) != 0 || write_file(argv[2], &svg) != 0)
		return 1;
	t2 = now();
	printf("heatmap: %d s x %u slices, %" PRIu64 " samples, %zu stack trie nodes\n",
	       seconds, hm.rows, heatmap_total(&hm), hm.nnodes - 1);
	printf("heatmap: build %.3f s, emit+write %.3f s, total %.3f s, SVG %.2f MB\n",
	       t1 - t0, t2 - t1, t2 - t0, svg.len / 1048576.0);
	if (argc > 3) {
		t2 = now();
		rect_per_cell(&hm, &peer);
		if (write_file(argv[3], &peer) != 0)
			return 1;
		t3 = now();
		printf("peer (rect+title per cell): emit+write %.3f s, SVG %.2f MB (no stacks)\n",
		       t3 - t2, peer.len / 1048576.0);
		printf("ratio: size %.2fx of peer with stacks embedded\n", (double)svg.len / peer.len);
	}
	heatmap_free(&hm);
	membuf_free(&svg);
	membuf_free(&peer);
	return 0;
}
