/*
 * test_unwind_policy.c - how the unwind table cache shares the kernel's
 * row array, so that it cannot churn (every load evicting tables the next
 * process builds again: 435 builds in 20 s with every process selected,
 * when clang's libLLVM took 979k of 1,048k rows).  Real files and the real
 * worker; the kernel is a fake with a row capacity the test chooses:
 *
 *   share     a table over 1/UNWIND_TABLE_SHARE of the rows is refused,
 *             counted, never loaded and never built again
 *   hopeless  no idle table is evicted for one that would not fit anyway
 *   lru       the victim is the table unused the longest
 *   backoff   a table evicted for room is not built again within the
 *             back-off (counted); after it, the next mapping builds it
 *   exits     a table whose last process is found gone by the collection
 *             is idle from then: not unloaded at once (it was, and every
 *             short-lived process's files were built again: 600 builds in
 *             40 s with a clang loop running)
 *   defer     with defer_builds, a file is built only when mapped in a
 *             second drain or by a process that lived through one; builds
 *             queued for files nobody maps any more are dropped
 *   unseen    a process no drain met for the idle time gives up its
 *             tables when a process met now needs the rows (a narrowed
 *             filter left chromium's tables loaded and python3 without
 *             one); one met within it keeps them
 *   unselected a process the selection leaves out gives up its tables at
 *             once when another needs the rows, even if a drain met it a
 *             second ago (or meets it after: a sample from before); one
 *             the selection takes again keeps them
 *   retry     a file mapping left without a table that describing the
 *             process again may give (its file did not open; no room in
 *             the kernel) is marked SP_UNWIND_RETRY, so the walker asks;
 *             the retry is due at once, then after a growing back-off;
 *             one without room is built again only after the back-off
 *             (it kept frame pointers for life: _json in qa 050)
 *
 * The files: libraries compiled here from one generated source with a
 * different seed each (same row count, different build-ids), and a tiny one.
 * The cache's clock is the test's (unwind_config.clock_ns): idle times,
 * back-offs and retries move only when the test says time passed, so a
 * build slowed by a loaded host cannot run a back-off out.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include "unit.h"
#include "sym_testlib.h"
#include "unwind/unwind.h"

#define NLIBS		6
#define BACKOFF_NS	(400 * 1000000ull)

/* ---- the fake kernel: a row capacity, blocks as the sampler counts them ---- */

#define MAX_IDS		64

static struct {
	uint64_t	capacity, used;		/* rows, in whole blocks */
	uint32_t	rows_of[MAX_IDS];	/* 0: free id */
	int		adds, removes, last_removed;
	uint32_t	last_table;		/* of the first mapping last set */
	int		fail_opens;		/* the next opens that fail */
} k;

static uint64_t
in_blocks(uint64_t rows)
{
	return (rows + SP_UNWIND_BLOCK_ROWS - 1) / SP_UNWIND_BLOCK_ROWS * SP_UNWIND_BLOCK_ROWS;
}

static int
k_table_add(void *arg, uint64_t base, const struct sp_unwind_row *rows, uint32_t n)
{
	(void)arg, (void)base, (void)rows;
	k.adds++;
	if (k.used + in_blocks(n) > k.capacity)
		return -ENOSPC;
	for (int id = 0; id < MAX_IDS; id++)
		if (k.rows_of[id] == 0) {
			k.rows_of[id] = n;
			k.used += in_blocks(n);
			return id;
		}
	return -ENOSPC;
}

static int
k_table_remove(void *arg, uint32_t id)
{
	(void)arg;
	CHECK(id < MAX_IDS && k.rows_of[id] != 0);
	k.used -= in_blocks(k.rows_of[id]);
	k.rows_of[id] = 0;
	k.removes++;
	k.last_removed = (int)id;
	return 0;
}

static int
k_process_set(void *arg, pid_t tgid, const struct sp_unwind_mapping *m, uint32_t n)
{
	(void)arg, (void)tgid;
	k.last_table = n ? m[0].table : SP_UNWIND_NO_TABLE;
	return 0;
}

static int
k_process_remove(void *arg, pid_t tgid)
{
	(void)arg, (void)tgid;
	return 0;
}

static const struct unwind_kernel_ops kops = {
	k_table_add, k_table_remove, k_process_set, k_process_remove,
};

/* ---- the files: a mapping names one by inode ---- */

static struct lib {
	char		path[512];
	uint64_t	dev, ino;
} libs[NLIBS + 1];			/* libs[NLIBS]: the tiny one */

static int
s_open_file(void *arg, pid_t tgid, const struct unwind_mapping *m)
{
	(void)arg, (void)tgid;
	if (k.fail_opens > 0 && k.fail_opens--)
		return -ENOENT;		/* gone from map_files for a moment */
	for (int i = 0; i <= NLIBS; i++)
		if (libs[i].ino == m->ino && libs[i].dev == m->dev)
			return open(libs[i].path, O_RDONLY | O_CLOEXEC);
	return -ENOENT;
}

static int
s_read_image(void *arg, pid_t tgid, const struct unwind_mapping *m, void **image, size_t *len)
{
	(void)arg, (void)tgid, (void)m, (void)image, (void)len;
	return -ENOENT;
}

static const struct unwind_source_ops sops = { s_open_file, s_read_image };

static void
build_libs(void)
{
	FILE *f = fopen(spath("gen.c"), "w");
	struct stat st;

	/* functions with frames and calls: several CFI rows each */
	for (int i = 0; i < 300; i++)
		fprintf(f, "int g%d(int *p, int n) { int a[16]; for (int i = 0; i < n; i++) "
			   "a[i & 15] = p[i] * SEED + %d; extern int ext(int *); return ext(a) + n; }\n",
			i, i);
	fclose(f);
	write_file(spath("tiny.c"), "int tiny(int x) { return x + 1; }\n");
	for (int i = 0; i <= NLIBS; i++) {
		snprintf(libs[i].path, sizeof(libs[i].path), "%s/lib%d.so", scratch_dir(), i);
		if (i < NLIBS)
			must_run("cc -O1 -fPIC -shared -DSEED=%d -o %s %s", i + 3, libs[i].path,
				 spath("gen.c"));
		else
			must_run("cc -O1 -fPIC -shared -o %s %s", libs[i].path, spath("tiny.c"));
		CHECK(stat(libs[i].path, &st) == 0);
		libs[i].dev = st.st_dev;
		libs[i].ino = st.st_ino;
	}
}

/* ---- helpers ---- */

static uint64_t fake_ns = 1000 * 1000000000ull;

static uint64_t
fake_clock(void)
{
	return fake_ns;
}

static void
pass_ms(long ms)
{
	fake_ns += (uint64_t)ms * 1000000ull;
}

static struct unwind_cache *
cache_with(uint64_t capacity, const struct unwind_config *cfg)
{
	struct unwind_cache *c;

	memset(&k, 0, sizeof(k));
	k.capacity = capacity;
	k.last_removed = -1;
	c = unwind_cache_new(cfg, &kops, NULL, &sops, NULL);
	CHECK(c != NULL);
	return c;
}

static struct unwind_cache *
cache_new(uint64_t capacity, uint32_t kernel_rows)
{
	struct unwind_config cfg = { .kernel_rows = kernel_rows, .backoff_ns = BACKOFF_NS,
				     .clock_ns = fake_clock };
	struct unwind_cache *c;

	memset(&k, 0, sizeof(k));
	k.capacity = capacity;
	k.last_removed = -1;
	c = unwind_cache_new(&cfg, &kops, NULL, &sops, NULL);
	CHECK(c != NULL);
	return c;
}

static struct unwind_mapping
lib_mapping(int i)
{
	struct unwind_mapping m = {
		.start = 0x100000000ull * (uint64_t)(i + 1), .pgoff = 0,
		.dev = libs[i].dev, .ino = libs[i].ino, .kind = UNWIND_MAP_FILE,
	};

	m.end = m.start + 0x10000;
	return m;
}

/* Process tgid maps library i (alone), and its table is loaded or refused. */
static void
map_lib(struct unwind_cache *c, pid_t tgid, int i)
{
	struct unwind_mapping m = lib_mapping(i);

	CHECK_INT(unwind_process_set(c, tgid, &m, 1), 0);
	CHECK_INT(unwind_cache_settle(c, 10000), 0);
}

static struct unwind_stats
stats(struct unwind_cache *c)
{
	struct unwind_stats st;

	unwind_cache_stats(c, &st);
	return st;
}

/* The rows of a generated library's table, and the tiny one's. */
static uint32_t lib_rows, tiny_rows;

static void
measure(void)
{
	struct unwind_cache *c = cache_new(UINT32_MAX, 0);

	map_lib(c, 100, 0);
	lib_rows = (uint32_t)stats(c).kernel_rows;
	map_lib(c, 101, NLIBS);
	tiny_rows = (uint32_t)(stats(c).kernel_rows - lib_rows);
	unwind_cache_free(c);
	CHECK(lib_rows > 4 * SP_UNWIND_BLOCK_ROWS);	/* several blocks: the sizes below need it */
	CHECK(tiny_rows > 0 && tiny_rows < lib_rows);
}

/* ---- the cases ---- */

static void
test_share(void)
{
	/* a generated library is over a quarter, the tiny one is not */
	uint64_t cap = 3 * (uint64_t)lib_rows;
	struct unwind_cache *c = cache_new(cap, (uint32_t)cap);

	map_lib(c, 1, 0);
	CHECK_INT(stats(c).too_large, 1);
	CHECK_INT(k.adds, 0);			/* never offered to the kernel */
	CHECK_INT(stats(c).tables_loaded, 0);
	map_lib(c, 2, NLIBS);
	CHECK_INT(stats(c).tables_loaded, 1);
	/* another process, the first gone: remembered, not built again */
	unwind_process_forget(c, 1, false);
	map_lib(c, 3, 0);
	CHECK_INT(stats(c).builds, 2);
	CHECK_INT(stats(c).too_large, 1);
	CHECK_INT(k.adds, 1);
	unwind_cache_free(c);
}

static void
test_hopeless(void)
{
	/* room for four libraries and the tiny one, not five libraries */
	uint64_t cap = 4 * in_blocks(lib_rows) + in_blocks(tiny_rows) + SP_UNWIND_BLOCK_ROWS;
	struct unwind_cache *c = cache_new(cap, (uint32_t)cap);

	map_lib(c, 1, NLIBS);
	unwind_process_forget(c, 1, false);	/* the tiny table is idle */
	for (int i = 0; i < 4; i++)
		map_lib(c, 10 + i, i);
	CHECK_INT(stats(c).tables_loaded, 5);
	map_lib(c, 20, 4);			/* cannot fit even with the tiny one gone */
	CHECK_INT(stats(c).kernel_full, 1);
	CHECK_INT(stats(c).evictions, 0);
	CHECK_INT(k.removes, 0);
	CHECK_INT(stats(c).tables_loaded, 5);
	unwind_cache_free(c);
}

static void
test_lru_backoff(void)
{
	/* room for two libraries; no share bound */
	uint64_t cap = 2 * in_blocks(lib_rows) + SP_UNWIND_BLOCK_ROWS;
	struct unwind_cache *c = cache_new(cap, 0);
	int id0 = 0;				/* the fake gives the first free id */

	map_lib(c, 1, 0);
	map_lib(c, 2, 1);
	CHECK_INT(stats(c).tables_loaded, 2);
	unwind_process_forget(c, 1, false);	/* library 0 unused first ... */
	pass_ms(20);
	unwind_process_forget(c, 2, false);	/* ... then library 1 */
	map_lib(c, 3, 2);
	CHECK_INT(stats(c).evictions, 1);
	CHECK_INT(k.last_removed, id0);		/* the one unused the longest */
	CHECK_INT(stats(c).tables_loaded, 2);

	/* library 0 again, within the back-off: not built, counted */
	map_lib(c, 4, 0);
	CHECK_INT(stats(c).builds, 3);
	CHECK_INT(stats(c).rebuilds_deferred, 1);
	CHECK_INT(stats(c).pending, 0);
	unwind_process_forget(c, 4, false);

	/* after it: the next process that maps it builds it */
	pass_ms((long)(BACKOFF_NS / 1000000) + 50);
	map_lib(c, 5, 0);
	CHECK_INT(stats(c).builds, 4);
	CHECK_INT(stats(c).rebuilds_deferred, 1);
	CHECK_INT(stats(c).tables_loaded, 2);	/* library 1, idle, made room */
	unwind_cache_free(c);
}

/* A pid no process has (collect forgets it as gone). */
static pid_t
gone_pid(void)
{
	for (pid_t p = 3999999; p > 1000; p -= 7919)
		if (kill(p, 0) < 0 && errno == ESRCH)
			return p;
	return -1;
}

static void
test_exits(void)
{
	struct unwind_cache *c = cache_new(UINT32_MAX, 0);
	pid_t gone = gone_pid();

	CHECK(gone > 0);
	map_lib(c, gone, 0);
	CHECK_INT(stats(c).tables_loaded, 1);
	unwind_cache_collect(c);		/* finds it gone: the table idles from now */
	CHECK_INT(stats(c).processes, 0);
	CHECK_INT(stats(c).evictions, 0);
	CHECK_INT(stats(c).tables_loaded, 1);
	unwind_cache_free(c);
}

static void
test_defer(void)
{
	struct unwind_config cfg = { .defer_builds = true, .idle_ns = 300 * 1000000ull,
				     .clock_ns = fake_clock };
	struct unwind_cache *c = cache_with(UINT32_MAX, &cfg);
	struct unwind_mapping three[3] = { lib_mapping(3), lib_mapping(4), lib_mapping(5) };
	pid_t gone = gone_pid(), me = getpid();

	/* drain 0: two processes map library 0, and go: nothing built */
	map_lib(c, gone, 0);
	map_lib(c, gone - 1, 0);
	CHECK_INT(stats(c).builds, 0);
	CHECK_INT(stats(c).pending, 0);
	CHECK_INT(stats(c).tables_loaded, 0);
	unwind_process_forget(c, gone, false);
	unwind_process_forget(c, gone - 1, false);
	/* ... one that lives on maps library 1 ... */
	map_lib(c, me, 1);
	/* ... and one maps library 2 and goes: met in one drain only */
	map_lib(c, gone, 2);
	unwind_process_forget(c, gone, false);
	unwind_cache_collect(c);
	CHECK_INT(stats(c).builds, 0);		/* library 1's process is young yet */

	/* drain 1: a new process maps library 0 (gzip file after file) */
	map_lib(c, gone, 0);
	CHECK_INT(stats(c).builds, 1);
	CHECK_INT(stats(c).tables_loaded, 1);
	unwind_process_forget(c, gone, false);
	unwind_cache_collect(c);		/* library 1's process lived through drain 1 */
	CHECK_INT(unwind_cache_settle(c, 10000), 0);
	CHECK_INT(stats(c).builds, 2);
	CHECK_INT(stats(c).tables_loaded, 2);

	/* library 2, never met again, is forgotten unbuilt after the idle time */
	pass_ms(350);
	unwind_cache_collect(c);
	CHECK_INT(stats(c).builds, 2);
	CHECK_INT(stats(c).builds_dropped, 1);

	/* three builds queued at once for a process that then goes: those
	 * the worker has not started are not made */
	CHECK_INT(unwind_process_set(c, me, three, 3), 0);
	unwind_cache_collect(c);
	unwind_cache_collect(c);		/* it lived through a drain: queued */
	CHECK(stats(c).pending >= 2);		/* (the worker may have finished one) */
	unwind_process_forget(c, me, false);
	CHECK_INT(unwind_cache_settle(c, 10000), 0);
	CHECK(stats(c).builds_dropped >= 2);	/* one may have been running */
	CHECK_INT(stats(c).builds + stats(c).builds_dropped, 2 + 1 + 3);
	unwind_cache_free(c);
}

static void
test_unseen(void)
{
	/* room for one library */
	uint64_t cap = in_blocks(lib_rows) + SP_UNWIND_BLOCK_ROWS;
	struct unwind_cache *c = cache_new(cap, 0);

	map_lib(c, 1, 0);
	pass_ms(59 * 1000);
	CHECK(unwind_process_seen(c, 1));	/* met within the idle time */
	pass_ms(2 * 1000);
	map_lib(c, 2, 1);
	CHECK_INT(stats(c).kernel_full, 1);	/* so it keeps its table */
	CHECK_INT(stats(c).processes, 2);
	CHECK_INT(stats(c).evictions, 0);

	/* 60 s more unmet: process 1 gives way to process 2, met now */
	pass_ms(61 * 1000);
	CHECK(unwind_process_seen(c, 2));
	pass_ms((long)(BACKOFF_NS / 1000000) + 50);
	CHECK(unwind_process_retry_due(c, 2));
	map_lib(c, 2, 1);
	CHECK_INT(stats(c).evictions, 1);
	CHECK_INT(stats(c).tables_loaded, 1);
	CHECK(k.last_table < SP_UNWIND_RETRY);
	CHECK_INT(stats(c).processes, 1);
	CHECK(!unwind_process_seen(c, 1));	/* forgotten: described when met again */
	unwind_cache_free(c);
}

static bool
keep_only_2(void *arg, pid_t tgid)
{
	(void)arg;
	return tgid == 2;
}

static bool
keep_all(void *arg, pid_t tgid)
{
	(void)arg, (void)tgid;
	return true;
}

static void
test_unselected(void)
{
	/* room for one library */
	uint64_t cap = in_blocks(lib_rows) + SP_UNWIND_BLOCK_ROWS;
	struct unwind_cache *c = cache_new(cap, 0);

	map_lib(c, 1, 0);
	pass_ms(1000);
	CHECK(unwind_process_seen(c, 1));	/* met a second ago */
	unwind_processes_select(c, keep_only_2, NULL);
	CHECK(unwind_process_seen(c, 1));	/* and after, by a sample from before */
	map_lib(c, 2, 1);
	CHECK_INT(stats(c).kernel_full, 0);
	CHECK_INT(stats(c).evictions, 1);
	CHECK_INT(stats(c).tables_loaded, 1);
	CHECK(k.last_table < SP_UNWIND_RETRY);
	CHECK_INT(stats(c).processes, 1);
	CHECK(!unwind_process_seen(c, 1));	/* forgotten: described when met again */
	unwind_cache_free(c);

	/* left out, then taken again: in use, kept */
	c = cache_new(cap, 0);
	map_lib(c, 1, 0);
	unwind_processes_select(c, keep_only_2, NULL);
	unwind_processes_select(c, keep_all, NULL);
	map_lib(c, 2, 1);
	CHECK_INT(stats(c).kernel_full, 1);
	CHECK_INT(stats(c).evictions, 0);
	CHECK_INT(stats(c).processes, 2);
	unwind_cache_free(c);
}

static void
test_retry(void)
{
	/* room for one library: the second has none while the first is mapped */
	uint64_t cap = in_blocks(lib_rows) + SP_UNWIND_BLOCK_ROWS;
	struct unwind_cache *c = cache_new(cap, 0);

	/* the open fails once: marked, the retry is due, and gives the table */
	k.fail_opens = 1;
	map_lib(c, 1, 0);
	CHECK_INT(stats(c).tables_loaded, 0);
	CHECK_INT(k.last_table, SP_UNWIND_RETRY);
	CHECK(unwind_process_retry_due(c, 1));
	CHECK(!unwind_process_retry_due(c, 1));	/* not again within 1 s */
	map_lib(c, 1, 0);
	CHECK_INT(stats(c).tables_loaded, 1);
	CHECK(k.last_table < SP_UNWIND_RETRY);
	CHECK(!unwind_process_retry_due(c, 2));	/* unknown process */

	/* no room: marked, not built again within the back-off ... */
	map_lib(c, 2, 1);
	CHECK_INT(stats(c).kernel_full, 1);
	CHECK_INT(k.last_table, SP_UNWIND_RETRY);
	CHECK(unwind_process_retry_due(c, 2));
	map_lib(c, 2, 1);
	CHECK_INT(stats(c).builds, 2);
	CHECK_INT(stats(c).rebuilds_deferred, 1);
	CHECK_INT(k.last_table, SP_UNWIND_RETRY);
	/* ... after it, with the first library idle, the retry loads it */
	unwind_process_forget(c, 1, false);
	pass_ms((long)(BACKOFF_NS / 1000000) + 50);
	map_lib(c, 2, 1);
	CHECK_INT(stats(c).builds, 3);
	CHECK_INT(stats(c).evictions, 1);
	CHECK(k.last_table < SP_UNWIND_RETRY);

	/* a refused table and frame-pointer code are not asked about */
	struct unwind_mapping jit = { .start = 0x1000, .end = 0x2000, .kind = UNWIND_MAP_OTHER };
	CHECK_INT(unwind_process_set(c, 3, &jit, 1), 0);
	CHECK_INT(k.last_table, SP_UNWIND_NO_TABLE);
	unwind_cache_free(c);
}

int
main(void)
{
	build_libs();
	measure();
	test_share();
	test_hopeless();
	test_lru_backoff();
	test_exits();
	test_defer();
	test_unseen();
	test_unselected();
	test_retry();
	return unit_report("test_unwind_policy");
}
