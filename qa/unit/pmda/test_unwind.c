/*
 * test_unwind.c - whole user stacks of code built without frame pointers,
 * for real: a program compiled here with -O2 -fomit-frame-pointer
 * (qa/src/unwind/unwind_chain.c) runs a known 10-deep call chain
 * main -> f1 -> ... -> f10 and spins at its end;
 * the BPF sampler walks its stacks with the tables the unwind cache built
 * from its .eh_frame (through the agent's unwinder: the symbolizer
 * enumerating its mappings), and every drained stack must name f10, f9, ..., f1, main
 * in order.  The cases:
 *
 *   leaf     f10 spins
 *   plt      f10 calls a function of a shared library built without frame
 *            pointers, through the PLT, in a tight loop
 *   syscall  f10 reads /dev/zero: samples in the kernel, whose user part
 *            starts from the registers saved at syscall entry
 *   signal   a SIGPROF handler spins, interrupting f10: through
 *            __restore_rt's signal frame back into the chain
 *   dlopen   f10 calls into a library dlopen'ed after the process was
 *            described: the walker asks for a refresh, the cache builds it
 *   retry    the process's file mappings are marked SP_UNWIND_RETRY (as
 *            when their files did not open): the walker asks
 *            (SP_EVENT_RETRY), the agent's answer gives them tables
 *
 * and two that must not reach main: the same leaf case under fp mode (the
 * kernel's frame-pointer walk; this shows the check can fail), and the plt
 * case with the library's .eh_frame corrupted (its table is refused and
 * counted, its frames fall back to frame pointers, nothing crashes).
 * Root only (BPF); skipped otherwise.
 */
#include <errno.h>
#include <gelf.h>
#include <poll.h>
#include <sys/prctl.h>
#include <time.h>
#include "unit.h"
#include "sym_testlib.h"
#include "cfi_testlib.h"
#include "sampler/sampler.h"
#include "symbolizer/symbolize.h"
#include "unwind/unwind.h"
#include "unwind_testlib.h"

#define FREQ		499
#define SAMPLE_S	1.0
#define MIN_SAMPLES	50	/* the CPU is shared: fewer than FREQ x SAMPLE_S come */
#define SAMPLE_MAX_S	60	/* ... and sampling goes on until MIN_SAMPLES, up to this */

/* the workloads' sources, relative to the top of the tree (make unit runs there) */
#define SRC_DIR		"qa/src/unwind"

#define CFLAGS_NOFP	"-O2 -fomit-frame-pointer -fno-optimize-sibling-calls"

/* ---- the workload ---- */

static const char *chain_bin, *nofp_dir, *broken_dir, *dl_lib;

static void
build_programs(void)
{
	must_run("mkdir -p %s/nofp %s/broken", scratch_dir(), scratch_dir());
	must_run("cc " CFLAGS_NOFP " -fPIC -shared -o %s " SRC_DIR "/libleaf.c",
		 spath("nofp/libleaf.so"));
	/* no build-id: the damaged copy must not pass for the good one */
	must_run("cc " CFLAGS_NOFP " -fPIC -shared -Wl,--build-id=none -o %s " SRC_DIR "/libleaf.c",
		 spath("broken/libleaf.so"));
	must_run("cc " CFLAGS_NOFP " -fPIC -shared -o %s " SRC_DIR "/dl.c", spath("dl.so"));
	must_run("cc " CFLAGS_NOFP " -o %s " SRC_DIR "/unwind_chain.c -L%s/nofp -lleaf -ldl",
		 spath("chain"), scratch_dir());
	chain_bin = strdup(spath("chain"));
	nofp_dir = strdup(spath("nofp"));
	broken_dir = strdup(spath("broken"));
	dl_lib = strdup(spath("dl.so"));
}

/* The library at path with its .eh_frame damaged: a huge length every 16
 * bytes, so no entry in it parses.  ld.so never reads .eh_frame, so the
 * library still loads and runs. */
static void
break_eh_frame(const char *path)
{
	uint64_t off = 0, addr, size = 0;
	int fd = open(path, O_RDWR);

	CHECK(cfi_section(path, ".eh_frame", &addr, &off, &size) && size > 16);
	for (uint64_t at = off; at + 4 <= off + size; at += 16) {
		uint32_t huge = 0x7ffffff0;

		CHECK_INT(pwrite(fd, &huge, 4, (off_t)at), 4);
	}
	close(fd);
}

/* Where pid mapped the start of the file at path (its load base). */
static uint64_t
load_base(pid_t pid, const char *path)
{
	char maps[64], line[1024], file[512];
	unsigned long long lo, off;
	uint64_t base = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(maps, "r")))
		return 0;
	while (!base && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%*x %*s %llx %*s %*s %511s", &lo, &off, file) == 3 &&
		    off == 0 && strcmp(file, path) == 0)
			base = lo;
	fclose(f);
	return base;
}

/* Start the chain in mode with lib_dir on the library path; returns once
 * it spins in f10. */
static struct child
start_chain(const char *mode, const char *lib_dir)
{
	char *argv[] = { (char *)chain_bin, (char *)mode, (char *)dl_lib, NULL };
	char line[64] = "";
	struct child c;

	setenv("LD_LIBRARY_PATH", lib_dir, 1);
	c = child_start(argv);
	unsetenv("LD_LIBRARY_PATH");
	if (!fgets(line, sizeof(line), c.out) || strcmp(line, "ready\n") != 0)
		fprintf(stderr, "chain %s did not start: '%s'\n", mode, line);
	return c;
}

/* ---- checking the stacks ---- */

struct tally {
	struct glue	*g;
	pid_t		pid;
	uint64_t	samples, full, with_kernel, full_with_kernel, in_handler;
	uint64_t	leaf_named;		/* frame 0 is the function we expect */
	uint64_t	plt_lo, plt_hi, in_plt;	/* frame 0 in the program's PLT */
	bool		want_plt;		/* sample until one is in the PLT */
	const char	*leaf;			/* e.g. "[l] lib_work" */
	char		example[1024];		/* one stack that is not full */
};

/* f10 ... f1 main, in this order, starting at some frame. */
static bool
full_chain(char names[][128], int n, int *at)
{
	for (int i = 0; i + 10 < n; i++) {
		bool ok = strcmp(names[i], "f10") == 0;

		for (int k = 1; ok && k < 10; k++) {
			char want[8];

			snprintf(want, sizeof(want), "f%d", 10 - k);
			ok = strcmp(names[i + k], want) == 0;
		}
		if (ok && strcmp(names[i + 10], "main") == 0) {
			*at = i;
			return true;
		}
	}
	return false;
}

static void
tally_stack(void *arg, const struct sampled_stack *st)
{
	struct tally *t = arg;
	char names[SP_MAX_STACK_DEPTH][128];
	int n = st->nuser, at = -1;
	bool full;

	if ((pid_t)st->key->tgid != t->pid)
		return;
	for (int i = 0; i < n; i++)
		symbolize_user(t->g->sym, t->pid, st->user_ips[i], names[i], sizeof(names[i]));
	full = full_chain(names, n, &at);
	t->samples += st->count;
	t->full += full ? st->count : 0;
	t->with_kernel += st->nkernel > 0 ? st->count : 0;
	t->full_with_kernel += full && st->nkernel > 0 ? st->count : 0;
	if (full && at > 0 && strcmp(names[at - 1], "[l] __restore_rt") == 0)
		t->in_handler += st->count;
	if (n > 0 && t->leaf && strcmp(names[0], t->leaf) == 0)
		t->leaf_named += st->count;
	if (n > 0 && st->user_ips[0] >= t->plt_lo && st->user_ips[0] < t->plt_hi)
		t->in_plt += st->count;
	if (!full && !t->example[0]) {
		size_t len = 0;

		for (int i = 0; i < n && len < sizeof(t->example) - 160; i++)
			len += snprintf(t->example + len, sizeof(t->example) - len, "%s%s",
					i ? ";" : "", names[i]);
	}
}

/* Sample pid for SAMPLE_S, and on until MIN_SAMPLES of its stacks came
 * and, if wanted, one in the PLT (a loaded host gives it less CPU, and a
 * PLT stub is a few instructions; SAMPLE_MAX_S bounds a sampler that
 * delivers nothing), and tally its stacks. */
static void
sample(struct glue *g, pid_t pid, struct tally *t)
{
	struct timespec d = { 0, 100 * 1000000L };

	t->g = g;
	t->pid = pid;
	CHECK_INT(sampler_set_filter(g->s, false, &pid, 1), 0);
	CHECK_INT(sampler_drain(g->s, tally_stack, &(struct tally){ .g = g, .pid = -1 }), 0);
	for (int i = 0; i < SAMPLE_MAX_S * 10 && (i < SAMPLE_S * 10 || t->samples < MIN_SAMPLES ||
						(t->want_plt && t->in_plt == 0)); i++) {
		nanosleep(&d, NULL);
		if (i % 5 == 4)
			CHECK_INT(sampler_drain(g->s, tally_stack, t), 0);
	}
	CHECK_INT(sampler_set_filter(g->s, false, NULL, 0), 0);
	CHECK_INT(sampler_drain(g->s, tally_stack, t), 0);
}

static void
report(const char *name, const struct tally *t)
{
	printf("%s: %llu samples, %llu with f10..f1,main (%.1f%%), %llu with a kernel part "
	       "(%llu of them full), leaf %s in %llu, in the PLT %llu, in the handler %llu\n",
	       name, (unsigned long long)t->samples,
	       (unsigned long long)t->full, t->samples ? 100.0 * t->full / t->samples : 0.0,
	       (unsigned long long)t->with_kernel, (unsigned long long)t->full_with_kernel,
	       t->leaf ? t->leaf : "-", (unsigned long long)t->leaf_named,
	       (unsigned long long)t->in_plt, (unsigned long long)t->in_handler);
	if (t->example[0])
		printf("  e.g. %s\n", t->example);
}

static uint64_t
stat_of(struct glue *g, enum sp_stat which)
{
	struct sampler_stats st;

	sampler_read_stats(g->s, &st);
	return st.stat[which];
}

/* The chain in mode: every stack whole, and the frames the case is about. */
static void
test_case(struct glue *g, const char *mode, const char *leaf)
{
	struct child c = start_chain(mode, nofp_dir);
	struct tally t = { .leaf = leaf, .want_plt = strcmp(mode, "plt") == 0 };
	uint64_t table0 = stat_of(g, SP_STAT_UNWIND_TABLE_FRAMES), off, addr, size;

	if (cfi_section(chain_bin, ".plt", &addr, &off, &size)) {
		t.plt_lo = load_base(c.pid, chain_bin) + addr;
		t.plt_hi = t.plt_lo + size;
	}
	describe(g, c.pid);
	sample(g, c.pid, &t);
	child_stop(&c);
	report(mode, &t);
	CHECK(t.samples >= MIN_SAMPLES);
	CHECK_INT(t.full, t.samples);
	CHECK(t.leaf_named > 0);
	CHECK(stat_of(g, SP_STAT_UNWIND_TABLE_FRAMES) - table0 >= 10 * t.samples);
	if (strcmp(mode, "plt") == 0)
		CHECK(t.in_plt > 0);
	if (strcmp(mode, "syscall") == 0)
		CHECK(t.full_with_kernel >= t.samples * 9 / 10);
	if (strcmp(mode, "signal") == 0)
		CHECK(t.in_handler > t.samples / 4);
}

/* The same leaf under fp mode: the kernel's frame-pointer walk cannot get
 * through code built without frame pointers. */
static void
test_fp_mode(struct glue *g)
{
	struct child c = start_chain("leaf", nofp_dir);
	struct tally t = { .leaf = "f10" };

	describe(g, c.pid);
	CHECK_INT(sampler_set_unwind_mode(g->s, SP_UNWIND_FP), 0);
	sample(g, c.pid, &t);
	CHECK_INT(sampler_set_unwind_mode(g->s, SP_UNWIND_AUTO), 0);
	child_stop(&c);
	report("leaf, fp mode", &t);
	CHECK(t.samples >= MIN_SAMPLES);
	CHECK(t.full < t.samples / 20);
	CHECK(t.leaf_named >= t.samples * 9 / 10);
	CHECK_INT(sampler_set_unwind_mode(g->s, (enum sp_unwind_mode)7), -EINVAL);
}

struct event_wait {
	enum sp_event_kind	kind;
	pid_t			pid;
	int			seen;
};

static void
on_event(void *arg, enum sp_event_kind kind, pid_t tgid)
{
	struct event_wait *w = arg;

	if (kind == w->kind && tgid == w->pid)
		w->seen++;
}

/* How many events of kind about pid came within 5 s (by the clock: other
 * processes' execs come through the same queue). */
static int
wait_event(struct sampler *s, enum sp_event_kind kind, pid_t pid)
{
	struct event_wait w = { kind, pid, 0 };
	struct pollfd pfd = { .fd = sampler_exec_fd(s), .events = POLLIN };

	for (time_t end = time(NULL) + 5; !w.seen && time(NULL) < end;)
		if (poll(&pfd, 1, 100) > 0)
			sampler_poll_events(s, on_event, &w);
	return w.seen;
}

/* A library mapped after the process was described: the walker meets pcs
 * in no mapping, asks (SP_EVENT_MAPS), and once the maps are read again
 * and the library's table is loaded, its stacks are whole. */
static void
test_dlopen(struct glue *g)
{
	struct child c = start_chain("dlopen", nofp_dir);
	struct tally t = { .leaf = "[l] mix" };
	uint64_t refresh0 = stat_of(g, SP_STAT_UNWIND_REFRESH);
	int asked;

	describe(g, c.pid);
	CHECK_INT(sampler_set_filter(g->s, false, &c.pid, 1), 0);
	CHECK_INT(write(c.in, "go\n", 3), 3);
	asked = wait_event(g->s, SP_EVENT_MAPS, c.pid);
	CHECK(asked > 0);
	unwinder_on_maps(g->u, c.pid);		/* the agent's answer */
	CHECK_INT(unwind_cache_settle(g->uc, 10000), 0);
	sample(g, c.pid, &t);
	child_stop(&c);
	report("dlopen", &t);
	printf("  refresh asked %d times (%llu counted)\n", asked,
	       (unsigned long long)(stat_of(g, SP_STAT_UNWIND_REFRESH) - refresh0));
	CHECK(t.samples >= MIN_SAMPLES);
	CHECK_INT(t.full, t.samples);
	CHECK(t.leaf_named > t.samples / 2);
}

/* Every file mapping of pid, marked SP_UNWIND_RETRY, to the kernel. */
struct retry_array {
	struct sp_unwind_mapping m[SP_UNWIND_MAX_MAPPINGS];
	uint32_t n;
};

static void
add_retry(void *arg, const struct symbolizer_mapping *sm)
{
	struct retry_array *a = arg;

	if (sm->kind == SYMBOLIZER_MAP_FILE && a->n < SP_UNWIND_MAX_MAPPINGS)
		a->m[a->n++] = (struct sp_unwind_mapping){
			.start = sm->start, .len = (uint32_t)(sm->end - sm->start),
			.table = SP_UNWIND_RETRY,
		};
}

/* A process whose files had no table when it was described (the open
 * raced with dlopen or failed): its stacks are whole once the walker has
 * asked and the agent has described it again. */
static void
test_retry(struct glue *g)
{
	struct child c = start_chain("plt", nofp_dir);
	struct tally t = { .leaf = "[l] lib_work" };
	struct retry_array a = { .n = 0 };
	int asked;

	describe(g, c.pid);
	CHECK(symbolizer_mappings(g->sym, c.pid, add_retry, &a) > 0);
	CHECK(a.n >= 2);			/* the program and the library at least */
	CHECK_INT(sampler_unwind_set_process(g->s, c.pid, a.m, a.n), 0);
	CHECK_INT(sampler_set_filter(g->s, false, &c.pid, 1), 0);
	asked = wait_event(g->s, SP_EVENT_RETRY, c.pid);
	CHECK(asked > 0);
	unwinder_on_retry(g->u, c.pid);		/* the agent's answer */
	CHECK_INT(unwind_cache_settle(g->uc, 10000), 0);
	sample(g, c.pid, &t);
	child_stop(&c);
	report("retry", &t);
	printf("  retry asked %d times\n", asked);
	CHECK(t.samples >= MIN_SAMPLES);
	CHECK_INT(t.full, t.samples);
}

/* The library's CFI is garbage: its table is refused and counted, the
 * program's own table still works, the library's frames step by frame
 * pointer, and every sample is still delivered. */
static void
test_broken_library(struct glue *g)
{
	struct unwind_stats a, b;
	struct tally t = { .leaf = "[l] lib_work" };
	struct child c;
	char path[512];
	uint64_t notable0 = stat_of(g, SP_STAT_UNWIND_NO_TABLE);

	snprintf(path, sizeof(path), "%s/libleaf.so", broken_dir);
	break_eh_frame(path);
	unwind_cache_stats(g->uc, &a);
	c = start_chain("plt", broken_dir);
	describe(g, c.pid);
	unwind_cache_stats(g->uc, &b);
	sample(g, c.pid, &t);
	child_stop(&c);
	report("plt, broken library", &t);
	printf("  build errors %llu -> %llu, frames without a table %llu\n",
	       (unsigned long long)a.build_errors, (unsigned long long)b.build_errors,
	       (unsigned long long)(stat_of(g, SP_STAT_UNWIND_NO_TABLE) - notable0));
	CHECK_INT(b.build_errors - a.build_errors, 1);
	CHECK(t.samples >= MIN_SAMPLES);
	CHECK(t.leaf_named > 0);
	CHECK(stat_of(g, SP_STAT_UNWIND_NO_TABLE) - notable0 >= t.leaf_named);
}

/*
 * Lifecycle, with a cache whose idle time is 1 ms of a clock the test
 * moves (so that a preempted test cannot overrun it): a second process of
 * the same program builds nothing (its files are known by inode); when a
 * process exits the kernel drops its array and says so (SP_EVENT_EXIT);
 * once no process has mapped them for the idle time (counted from when
 * collect found the last one gone), collect unloads the tables and the
 * kernel's rows are free again.
 */
static uint64_t lifecycle_ns = 1000 * 1000000000ull;

static uint64_t
lifecycle_clock(void)
{
	return lifecycle_ns;
}

static void
test_lifecycle(struct glue *main_glue)
{
	struct unwind_config cfg = { .idle_ns = 1000000, .clock_ns = lifecycle_clock };
	struct glue g = { .s = main_glue->s, .sym = main_glue->sym };
	struct sampler_unwind_usage u0, u1, u2;
	struct unwind_stats a, b, c, d;
	struct child one, two;
	pid_t gone;

	sampler_unwind_usage(g.s, &u0);
	if (!glue_open(&g, &cfg))
		return;
	one = start_chain("leaf", nofp_dir);
	two = start_chain("leaf", nofp_dir);
	describe(&g, one.pid);
	unwind_cache_stats(g.uc, &a);
	describe(&g, two.pid);
	unwind_cache_stats(g.uc, &b);
	sampler_unwind_usage(g.s, &u1);
	CHECK(a.builds >= 4);		/* chain, libleaf, libc, ld.so (+ vDSO) */
	CHECK_INT(b.builds, a.builds);
	CHECK_INT(b.tables_loaded, a.tables_loaded);
	CHECK_INT(b.processes, 2);
	CHECK_INT(u1.rows - u0.rows, b.kernel_rows);

	gone = one.pid;
	child_stop(&one);
	CHECK_INT(wait_event(g.s, SP_EVENT_EXIT, gone), 1);
	CHECK_INT(sampler_unwind_remove_process(g.s, gone), -ENOENT);
	unwinder_on_exit(g.u, gone);
	unwinder_collect(g.u);
	unwind_cache_stats(g.uc, &c);
	CHECK_INT(c.processes, 1);
	CHECK_INT(c.tables_loaded, b.tables_loaded);	/* two still maps them */

	child_stop(&two);			/* its exit event is left unread: */
	lifecycle_ns += 2000000;
	unwinder_collect(g.u);			/* collect finds it gone anyway: */
	unwind_cache_stats(g.uc, &d);
	CHECK_INT(d.processes, 0);
	CHECK_INT(d.tables_loaded, b.tables_loaded);	/* idle from now, ... */
	lifecycle_ns += 2000000;
	unwinder_collect(g.u);			/* ... gone after the idle time */
	unwind_cache_stats(g.uc, &d);
	sampler_unwind_usage(g.s, &u2);
	printf("lifecycle: %llu tables built for the first process, %llu more for the second; "
	       "%llu rows loaded; after both exited %llu tables, %u rows left (%u before)\n",
	       (unsigned long long)a.builds, (unsigned long long)(b.builds - a.builds),
	       (unsigned long long)b.kernel_rows, (unsigned long long)d.tables_loaded,
	       u2.rows, u0.rows);
	CHECK_INT(d.processes, 0);
	CHECK_INT(d.tables_loaded, 0);
	CHECK_INT(d.kernel_rows, 0);
	CHECK_INT(u2.rows, u0.rows);
	CHECK_INT(u2.tables, u0.tables);
	unwinder_free(g.u);
}

int
main(void)
{
	struct sampler_config cfg = { .frequency_hz = FREQ, .interval_ms = 1000, .heatmap_slots = 50 };
	struct glue g = { 0 };
	int err;

	prctl(PR_SET_NAME, "test_unwind");
	if (geteuid() != 0)
		unit_skip("test_unwind", "needs root to load BPF programs");
	if (!have_program("cc"))
		unit_skip("test_unwind", "needs a C compiler for its workload");
	build_programs();
	err = sampler_open(&g.s, &cfg);
	CHECK_INT(err, 0);
	if (err < 0)
		return unit_report("test_unwind");
	g.sym = symbolizer_new(64 << 20);
	CHECK(g.sym != NULL);
	if (!g.sym || !glue_open(&g, NULL))
		return unit_report("test_unwind");
	test_case(&g, "leaf", "f10");
	test_case(&g, "plt", "[l] lib_work");
	test_case(&g, "syscall", "[l] read");
	test_case(&g, "signal", "handler");
	test_dlopen(&g);
	test_retry(&g);
	test_fp_mode(&g);
	test_broken_library(&g);
	test_lifecycle(&g);
	unwinder_free(g.u);
	symbolizer_free(g.sym);
	sampler_close(g.s);
	return unit_report("test_unwind");
}
