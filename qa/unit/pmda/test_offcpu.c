/*
 * test_offcpu.c - the off-CPU and page-fault profiles for real (root, real
 * kernel, real BPF).  Threads of this process wait or fault in known
 * functions, each in a section of its own (so its address range is
 * known), and the checks compare what the sampler drained with what the
 * threads did:
 *
 *   sleeper  nanosleep(10 ms) in a loop in sleep_here(): blocked for about
 *            all its wall time; its microseconds must be within 25% of it,
 *            under stacks that name sleep_here (reached through libc,
 *            built without frame pointers: the walker and its tables).
 *   reader   one blocking read() of a pipe in read_here(), written ~1 s
 *            later while the main thread drains every 100 ms: a sleep
 *            across ten drains counts whole, under pipe_read.
 *   spinners two threads spinning on one CPU: each is preempted about half
 *            the time, which is not sleeping, so ~0 off-CPU (< 2%).
 *   toucher  writes fresh pages in touch_here(): estimated faults (samples
 *            x period) within 25% of the faults the kernel counted for the
 *            thread, nearly all of them in touch_here.
 *
 * And: drained sums equal the BPF counters exactly; offcpu_min_us drops
 * (and counts) shorter blocks, offcpu_sample keeps 1 in N of them
 * weighted N; an unselected process is not counted; off
 * means no program runs; the raw tracepoint does the same as tp_btf; bad
 * arguments are refused.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include "unit.h"
#include "sym_testlib.h"
#include "unwind_testlib.h"

extern const char __start_sleep_text[], __stop_sleep_text[];
extern const char __start_read_text[], __stop_read_text[];
extern const char __start_spin_text[], __stop_spin_text[];
extern const char __start_touch_text[], __stop_touch_text[];

#define PAGE		4096
#define TOUCH_BYTES	(64u << 20)	/* 16384 faults */

static struct glue g;
static volatile unsigned long sink;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the known functions ---- */

/* How many times it slept: each sleep is one block at least. */
__attribute__((noinline, section("sleep_text"))) static unsigned long
sleep_here(double seconds)
{
	struct timespec ten_ms = { 0, 10000000 };
	double end = now_s() + seconds;
	unsigned long sleeps = 0;

	while (now_s() < end) {
		nanosleep(&ten_ms, NULL);
		sink++;
		sleeps++;
	}
	return sleeps;
}

__attribute__((noinline, section("read_text"))) static void
read_here(int fd)
{
	char c;

	sink += (unsigned long)read(fd, &c, 1);
}

__attribute__((noinline, section("spin_text"))) static void
spin_here(double seconds)
{
	double end = now_s() + seconds;	/* vDSO: never sleeps */

	while (now_s() < end)
		for (int i = 0; i < 10000; i++)
			sink = sink * 2654435761u + i;
}

__attribute__((noinline, section("touch_text"))) static void
touch_here(volatile char *p, size_t bytes)
{
	for (size_t at = 0; at < bytes; at += PAGE)
		p[at] = 1;
}

static bool
in_section(const struct sampled_stack *st, const char *lo, const char *hi)
{
	for (int i = 0; i < st->nuser; i++)
		if (st->user_ips[i] >= (uintptr_t)lo && st->user_ips[i] < (uintptr_t)hi)
			return true;
	return false;
}

/* ---- the threads ---- */

struct worker {
	const char	*name;
	pid_t		tid;
	double		t0, t1;		/* the part that matters, by its own clock */
	double		seconds;
	int		fd;		/* reader: the pipe */
	int		cpu;		/* spinners: pinned here */
	long		faults;		/* toucher: minor faults it took */
	unsigned long	sleeps;		/* sleeper: its nanosleeps */
};

static void
begin(struct worker *w)
{
	pthread_setname_np(pthread_self(), w->name);
	w->tid = gettid();
	w->t0 = now_s();
}

static void *
sleeper(void *arg)
{
	struct worker *w = arg;

	begin(w);
	w->sleeps = sleep_here(w->seconds);
	w->t1 = now_s();
	return NULL;
}

static void *
reader(void *arg)
{
	struct worker *w = arg;

	begin(w);
	read_here(w->fd);
	w->t1 = now_s();
	return NULL;
}

static void *
spinner(void *arg)
{
	struct worker *w = arg;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(w->cpu, &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	begin(w);
	spin_here(w->seconds);
	w->t1 = now_s();
	return NULL;
}

static void *
toucher(void *arg)
{
	struct worker *w = arg;
	char *p = mmap(NULL, TOUCH_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct rusage r0, r1;

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, TOUCH_BYTES, MADV_NOHUGEPAGE);	/* one fault per page */
	begin(w);
	getrusage(RUSAGE_THREAD, &r0);
	touch_here(p, TOUCH_BYTES);
	getrusage(RUSAGE_THREAD, &r1);
	w->t1 = now_s();
	w->faults = r1.ru_minflt - r0.ru_minflt + r1.ru_majflt - r0.ru_majflt;
	munmap(p, TOUCH_BYTES);
	return NULL;
}

/* ---- what the drains hand out ---- */

struct tally {
	pid_t		watch;			/* another process, or 0 */
	uint64_t	us_all, us_watch;	/* off-CPU µs of our process, of watch */
	uint64_t	faults_all;		/* estimated faults of our process */
	uint64_t	us_tid[6], us_known[6];	/* per worker: any stack, its function's */
	uint64_t	spin_moving;		/* spinners' µs asleep in sched_setaffinity */
	uint64_t	faults_tid, faults_known;
	uint64_t	sleeper_kernel_ok, reader_kernel_ok;	/* named kernel paths */
	uint64_t	sleeper_no_ustack;	/* the sleeper's µs without a user stack */
	uint64_t	reader_no_ustack;	/* the reader's µs without a user stack */
	uint64_t	in_schedule;		/* µs whose innermost kernel frame is __schedule */
	struct worker	*w;			/* [0] sleeper [1] reader [2,3] spinners [4] toucher */
};

static bool
kernel_names(const struct sampled_stack *st, const char *want)
{
	char name[256];

	for (int i = 0; i < st->nkernel; i++) {
		symbolize_kernel(g.sym, st->kernel_ips[i], name, sizeof(name));
		if (strstr(name, want))
			return true;
	}
	return false;
}

static const char *const section_lo[] = { __start_sleep_text, __start_read_text,
					   __start_spin_text, __start_spin_text };
static const char *const section_hi[] = { __stop_sleep_text, __stop_read_text,
					  __stop_spin_text, __stop_spin_text };

static void
tally_offcpu(struct tally *t, const struct sampled_stack *st)
{
	char name[256] = "";

	t->us_all += st->count;
	if (st->nkernel > 0)
		symbolize_kernel(g.sym, st->kernel_ips[0], name, sizeof(name));
	if (strcmp(name, "[k] __schedule") == 0)
		t->in_schedule += st->count;


	for (int i = 0; t->w && i < 4; i++) {
		if ((pid_t)st->key->tid != t->w[i].tid)
			continue;
		t->us_tid[i] += st->count;
		if (in_section(st, section_lo[i], section_hi[i]))
			t->us_known[i] += st->count;
		if (i == 0 && kernel_names(st, "nanosleep"))
			t->sleeper_kernel_ok += st->count;
		if (i == 1 && kernel_names(st, "pipe_read"))
			t->reader_kernel_ok += st->count;
		if (i == 0 && st->nuser == 0)
			t->sleeper_no_ustack += st->count;
		if (i == 1 && st->nuser == 0)
			t->reader_no_ustack += st->count;
		if ((i == 2 || i == 3) && kernel_names(st, "sched_setaffinity"))
			t->spin_moving += st->count;
	}
}

static void
tally(void *arg, const struct sampled_stack *st)
{
	struct tally *t = arg;

	if (t->watch && (pid_t)st->key->tgid == t->watch && st->profile == SAMPLER_OFFCPU)
		t->us_watch += st->count;
	if ((pid_t)st->key->tgid != getpid())
		return;
	if (st->profile == SAMPLER_OFFCPU)
		tally_offcpu(t, st);
	if (st->profile != SAMPLER_PAGEFAULT)
		return;
	t->faults_all += st->count;
	if (t->w && (pid_t)st->key->tid == t->w[4].tid) {
		t->faults_tid += st->count;
		if (in_section(st, __start_touch_text, __stop_touch_text))
			t->faults_known += st->count;
	}
}

static void
discard(void *arg, const struct sampled_stack *st)
{
	(void)arg;
	(void)st;
}

static struct sampler_stats
stats_of(struct sampler *s)
{
	struct sampler_stats st;

	CHECK_INT(sampler_read_stats(s, &st), 0);
	return st;
}

#define RISE(a, b, which)	((b).stat[which] - (a).stat[which])

static bool
within(double got, double want, double tolerance)
{
	return got >= want * (1 - tolerance) && got <= want * (1 + tolerance);
}

static void
select_self(struct sampler *s)
{
	pid_t self = getpid();

	CHECK_INT(sampler_set_filter(s, false, &self, 1), 0);
}

/* Start n workers, drain s every 100 ms into t until all have finished;
 * write the reader's byte to feed_fd (if >= 0) after feed_s and at least
 * 3 drains, so that the reader's block spans drains however slow the host
 * is. */
static int
run_workers(struct sampler *s, struct worker *w, void *(*const *fn)(void *), int n,
	    struct tally *t, int feed_fd, double feed_s)
{
	pthread_t th[8];
	double t0 = now_s();
	int running = n, drains = 0;

	for (int i = 0; i < n; i++)
		CHECK_INT(pthread_create(&th[i], NULL, fn[i], &w[i]), 0);
	while (running > 0) {
		usleep(100000);
		if (feed_fd >= 0 && now_s() - t0 >= feed_s && drains >= 3) {
			CHECK_INT(write(feed_fd, "x", 1), 1);
			feed_fd = -1;
		}
		CHECK_INT(sampler_drain(s, tally, t), 0);
		drains++;
		running = 0;
		for (int i = 0; i < n; i++)
			running += w[i].t1 == 0;
	}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return drains;
}

/* Counting starts from empty maps and counters read in *a. */
static void
start(struct sampler *s, struct sampler_stats *a)
{
	CHECK_INT(sampler_set_filter(s, false, NULL, 0), 0);
	CHECK_INT(sampler_drain(s, discard, NULL), 0);
	*a = stats_of(s);
	select_self(s);
}

/* Nothing more is counted for us once this returns; then the last drain. */
static void
finish(struct sampler *s, struct tally *t)
{
	CHECK_INT(sampler_set_filter(s, false, NULL, 0), 0);
	CHECK_INT(sampler_drain(s, tally, t), 0);
}

static double
wall_us(const struct worker *w)
{
	return (w->t1 - w->t0) * 1e6;
}

static void
check_offcpu_answers(const struct tally *t, const struct worker *w)
{
	double spin_wall = wall_us(&w[2]) + wall_us(&w[3]);

	printf("sleeper: %.0f us wall, %llu us off-CPU, %llu in sleep_here, %llu via nanosleep\n",
	       wall_us(&w[0]), (unsigned long long)t->us_tid[0],
	       (unsigned long long)t->us_known[0], (unsigned long long)t->sleeper_kernel_ok);
	printf("reader: %.0f us blocked, %llu us off-CPU, %llu in read_here, %llu via pipe_read\n",
	       wall_us(&w[1]), (unsigned long long)t->us_tid[1],
	       (unsigned long long)t->us_known[1], (unsigned long long)t->reader_kernel_ok);
	printf("spinners: %.0f us wall, %llu us off-CPU (%llu moving to their CPU), "
	       "%llu in spin_here\n", spin_wall,
	       (unsigned long long)(t->us_tid[2] + t->us_tid[3]),
	       (unsigned long long)t->spin_moving,
	       (unsigned long long)(t->us_known[2] + t->us_known[3]));
	CHECK(within(t->us_tid[0], wall_us(&w[0]), 0.25));
	CHECK(within(t->us_known[0], wall_us(&w[0]), 0.25));
	CHECK(t->sleeper_kernel_ok >= t->us_tid[0] * 9 / 10);
	/* every block keeps its user stack: a wake stores at most one element
	 * in each as-used map (bpf/offcpu.bpf.h), so none fails for want of a
	 * cached element (it did for the second of two: a 1-second block in
	 * 8 came back without its user stack, 10 ms blocks ~1%).  Counted as
	 * stacks missing, not as time outside sleep_here: under ASan the
	 * thread also blocks a few ms outside it, with its user stack */
	printf("sleeper without a user stack: %llu us\n", (unsigned long long)t->sleeper_no_ustack);
	CHECK(t->sleeper_no_ustack <= t->us_tid[0] / 1000 * 5);
	CHECK_INT(t->reader_no_ustack, 0);
	CHECK(within(t->us_known[1], wall_us(&w[1]), 0.25));
	CHECK(t->reader_kernel_ok >= t->us_tid[1] * 9 / 10);
	/* before spinning, each waits (asleep) to be moved to its CPU: as
	 * long as the target CPU's other spinner keeps it, on a loaded host */
	CHECK(t->us_known[2] + t->us_known[3] < spin_wall * 0.01);
	CHECK(t->us_tid[2] + t->us_tid[3] - t->spin_moving < spin_wall * 0.05);
}

static void *(*const known_fn[])(void *) = { sleeper, reader, spinner, spinner, toucher };

/* The known answers, off-CPU and page faults at once. */
static void
test_known_answers(void)
{
	struct worker w[5] = {
		{ .name = "sleeper", .seconds = 1.2 }, { .name = "reader" },
		{ .name = "spinner0", .seconds = 1.0 }, { .name = "spinner1", .seconds = 1.0 },
		{ .name = "toucher" },
	};
	struct tally t = { .w = w };
	struct sampler_stats a, b;
	int fds[2], drains;

	CHECK_INT(pipe(fds), 0);
	w[1].fd = fds[0];
	CHECK_INT(sampler_set_offcpu(g.s, true), 0);
	CHECK_INT(sampler_set_pagefault(g.s, true), 0);
	start(g.s, &a);
	drains = run_workers(g.s, w, known_fn, 5, &t, fds[1], 1.0);
	finish(g.s, &t);
	b = stats_of(g.s);
	close(fds[0]);
	close(fds[1]);

	printf("known_answers: %d drains, %llu switches, %llu intervals, %llu short, %llu full\n",
	       drains, (unsigned long long)RISE(a, b, SP_STAT_SWITCHES),
	       (unsigned long long)RISE(a, b, SP_STAT_OFFCPU_INTERVALS),
	       (unsigned long long)RISE(a, b, SP_STAT_OFFCPU_SHORT),
	       (unsigned long long)RISE(a, b, SP_STAT_OFFCPU_MAP_FULL));
	check_offcpu_answers(&t, w);
	printf("innermost kernel frame __schedule: %llu of %llu us\n",
	       (unsigned long long)t.in_schedule, (unsigned long long)t.us_all);
	CHECK(t.in_schedule >= t.us_all * 95 / 100);
	CHECK(drains >= 4);	/* the reader's block spanned 3 of them */
	CHECK_INT(t.us_all, RISE(a, b, SP_STAT_OFFCPU_USEC));
	CHECK_INT(RISE(a, b, SP_STAT_OFFCPU_MAP_FULL), 0);

	printf("toucher: %ld faults, %llu estimated, %llu in touch_here; %llu fault samples\n",
	       w[4].faults, (unsigned long long)t.faults_tid, (unsigned long long)t.faults_known,
	       (unsigned long long)RISE(a, b, SP_STAT_PAGEFAULT_SAMPLES));
	CHECK(w[4].faults >= TOUCH_BYTES / PAGE);
	CHECK(within(t.faults_tid, w[4].faults, 0.25));
	CHECK(t.faults_known >= t.faults_tid * 9 / 10);
	CHECK_INT(t.faults_all, RISE(a, b, SP_STAT_PAGEFAULT_SAMPLES) * SAMPLER_PAGEFAULT_PERIOD);
	CHECK_INT(sampler_set_offcpu(g.s, false), 0);
	CHECK_INT(sampler_set_pagefault(g.s, false), 0);
}

/* One sleeper of `seconds` on s, counted from empty maps: its tally. */
static struct tally
sleep_on(struct sampler *s, struct worker *w, double seconds, struct sampler_stats *a,
	 struct sampler_stats *b)
{
	struct tally t = { .w = w };

	memset(w, 0, 5 * sizeof(*w));
	w[0] = (struct worker){ .name = "sleeper", .seconds = seconds };
	start(s, a);
	run_workers(s, w, known_fn, 1, &t, -1, 0);
	finish(s, &t);
	*b = stats_of(s);
	return t;
}

/* Blocks shorter than offcpu_min_us are dropped, and counted with their
 * time; the filter moves with the knob.  A block lasts from switch-out to
 * switch-in, so it holds the wait for a CPU after the wake-up: the minimum
 * is 100 times the 10 ms sleeps, so that a loaded host's run queue cannot
 * carry one over it, and each of the sleeper's nanosleeps is a short block
 * at least. */
static void
test_min_block(void)
{
	struct worker w[5];
	struct sampler_stats a, b;
	struct tally t;

	CHECK_INT(sampler_set_offcpu(g.s, true), 0);
	CHECK_INT(sampler_set_offcpu_min_us(g.s, 1000000), 0);
	t = sleep_on(g.s, w, 0.5, &a, &b);
	CHECK_INT(sampler_set_offcpu_min_us(g.s, SAMPLER_OFFCPU_MIN_US), 0);
	CHECK_INT(sampler_set_offcpu(g.s, false), 0);
	printf("min_block 1 s: sleeper %.0f us wall, %lu sleeps, %llu us counted; %llu short "
	       "intervals of %llu us\n", wall_us(&w[0]), w[0].sleeps,
	       (unsigned long long)t.us_tid[0],
	       (unsigned long long)RISE(a, b, SP_STAT_OFFCPU_SHORT),
	       (unsigned long long)RISE(a, b, SP_STAT_OFFCPU_SHORT_USEC));
	CHECK_INT(t.us_tid[0], 0);
	CHECK(w[0].sleeps > 0);
	CHECK(RISE(a, b, SP_STAT_OFFCPU_SHORT) >= w[0].sleeps);
	CHECK(RISE(a, b, SP_STAT_OFFCPU_SHORT_USEC) >= wall_us(&w[0]) * 0.75);
	CHECK_INT(t.us_all, RISE(a, b, SP_STAT_OFFCPU_USEC));
}

/* 1 in N of the blocks under the minimum is kept, weighted N: N = 1 keeps
 * them all at their own length; N = 3 keeps a third, and the sum stays
 * near the wall time (100 blocks: sd of the draw ~8%). */
static void
test_sample_short(void)
{
	static const unsigned one_in[] = { 1, 3 };
	static const double tolerance[] = { 0.25, 0.40 };
	struct worker w[5];
	struct sampler_stats a, b;
	struct tally t;

	CHECK_INT(sampler_set_offcpu(g.s, true), 0);
	CHECK_INT(sampler_set_offcpu_min_us(g.s, 50000), 0);
	for (int i = 0; i < 2; i++) {
		CHECK_INT(sampler_set_offcpu_sample(g.s, one_in[i]), 0);
		t = sleep_on(g.s, w, 1.0, &a, &b);
		printf("sample 1 in %u under 50 ms: sleeper %.0f us wall, %llu us counted, "
		       "%llu of %llu short blocks kept\n", one_in[i], wall_us(&w[0]),
		       (unsigned long long)t.us_tid[0],
		       (unsigned long long)RISE(a, b, SP_STAT_OFFCPU_SAMPLED),
		       (unsigned long long)(RISE(a, b, SP_STAT_OFFCPU_SAMPLED) +
					    RISE(a, b, SP_STAT_OFFCPU_SHORT)));
		CHECK(within(t.us_tid[0], wall_us(&w[0]), tolerance[i]));
		CHECK(t.us_known[0] >= t.us_tid[0] * 9 / 10);
		CHECK(RISE(a, b, SP_STAT_OFFCPU_SAMPLED) > 0);
		CHECK_INT(t.us_all, RISE(a, b, SP_STAT_OFFCPU_USEC));
	}
	CHECK_INT(sampler_set_offcpu_sample(g.s, SAMPLER_OFFCPU_SAMPLE), 0);
	CHECK_INT(sampler_set_offcpu_min_us(g.s, SAMPLER_OFFCPU_MIN_US), 0);
	CHECK_INT(sampler_set_offcpu(g.s, false), 0);
}

static pid_t
spawn_sleeper(double seconds)
{
	pid_t pid = fork();

	if (pid == 0) {
		sleep_here(seconds);
		_exit(0);
	}
	return pid;
}

/* Another process is not counted while only we are selected, and is
 * when every process is. */
static void
test_selection(void)
{
	struct tally t = { 0 }, all = { 0 };
	struct sampler_stats a, b;
	double t0;

	CHECK_INT(sampler_set_offcpu(g.s, true), 0);
	start(g.s, &a);
	t.watch = spawn_sleeper(0.5);
	waitpid(t.watch, NULL, 0);
	finish(g.s, &t);
	b = stats_of(g.s);
	all.watch = spawn_sleeper(0.5);
	t0 = now_s();
	CHECK_INT(sampler_set_filter(g.s, true, NULL, 0), 0);
	waitpid(all.watch, NULL, 0);
	t0 = now_s() - t0;
	finish(g.s, &all);
	CHECK_INT(sampler_set_offcpu(g.s, false), 0);
	printf("selection: unselected child %llu us (%llu sleeps filtered), "
	       "all selected: child %llu us of %.0f\n", (unsigned long long)t.us_watch,
	       (unsigned long long)RISE(a, b, SP_STAT_OFFCPU_FILTERED),
	       (unsigned long long)all.us_watch, t0 * 1e6);
	CHECK_INT(t.us_watch, 0);
	CHECK(RISE(a, b, SP_STAT_OFFCPU_FILTERED) >= 30);
	CHECK(within(all.us_watch, t0 * 1e6, 0.25));
}

/* Off, or disabled, nothing runs at a switch or a fault, and switching
 * on and off leaves no link or event behind. */
static void
test_off_costs_nothing(void)
{
	struct worker w[5];
	struct sampler_stats a, b, c, d;
	int links0 = count_fds("bpf_link"), perf0 = count_fds("perf_event");

	sleep_on(g.s, w, 0.3, &a, &b);
	CHECK_INT(sampler_set_enabled(g.s, false), 0);
	CHECK_INT(sampler_set_offcpu(g.s, true), 0);
	CHECK_INT(sampler_set_pagefault(g.s, true), 0);
	sleep_on(g.s, w, 0.3, &c, &d);
	CHECK_INT(sampler_set_enabled(g.s, true), 0);
	for (int i = 0; i < 10; i++) {
		CHECK_INT(sampler_set_offcpu(g.s, i & 1), 0);
		CHECK_INT(sampler_set_pagefault(g.s, i & 1), 0);
	}
	CHECK_INT(sampler_set_offcpu(g.s, false), 0);
	CHECK_INT(sampler_set_pagefault(g.s, false), 0);
	printf("off: %llu switches seen while off, %llu while disabled; links %d -> %d, "
	       "perf events %d -> %d\n", (unsigned long long)RISE(a, b, SP_STAT_SWITCHES),
	       (unsigned long long)RISE(c, d, SP_STAT_SWITCHES), links0, count_fds("bpf_link"),
	       perf0, count_fds("perf_event"));
	CHECK_INT(RISE(a, b, SP_STAT_SWITCHES), 0);
	CHECK_INT(RISE(c, d, SP_STAT_SWITCHES), 0);
	CHECK_INT(RISE(c, d, SP_STAT_PAGEFAULT_SAMPLES) + RISE(c, d, SP_STAT_PAGEFAULT_FILTERED), 0);
	CHECK_INT(count_fds("bpf_link"), links0);
	CHECK_INT(count_fds("perf_event"), perf0);
}

/* The raw tracepoint, where tp_btf cannot load, counts the same; and with
 * a second program on sched_switch (ours, by tp_btf), stacks still start
 * at __schedule. */
static void
test_raw_tracepoint(void)
{
	struct sampler_config cfg = { .frequency_hz = 99, .interval_ms = 1000, .heatmap_slots = 50 };
	struct sampler_stats a, b;
	struct sampler *r = NULL;
	struct worker w[5];
	struct tally t;

	setenv("STACKPROF_SAMPLER_NO_TP_BTF", "1", 1);
	CHECK_INT(sampler_open(&r, &cfg), 0);
	unsetenv("STACKPROF_SAMPLER_NO_TP_BTF");
	if (!r)
		return;
	CHECK(sampler_offcpu_raw_tp(r));
	CHECK(!sampler_offcpu_raw_tp(g.s));
	CHECK_INT(sampler_set_offcpu(r, true), 0);
	CHECK_INT(sampler_set_offcpu(g.s, true), 0);
	t = sleep_on(r, w, 0.6, &a, &b);
	CHECK_INT(sampler_set_offcpu(g.s, false), 0);
	CHECK_INT(sampler_drain(g.s, discard, NULL), 0);
	sampler_close(r);
	printf("raw_tp: sleeper %.0f us wall, %llu us off-CPU, %llu via nanosleep, "
	       "%llu of %llu us innermost in __schedule\n", wall_us(&w[0]),
	       (unsigned long long)t.us_tid[0], (unsigned long long)t.sleeper_kernel_ok,
	       (unsigned long long)t.in_schedule, (unsigned long long)t.us_all);
	CHECK(within(t.us_tid[0], wall_us(&w[0]), 0.25));
	CHECK(t.sleeper_kernel_ok >= t.us_tid[0] * 9 / 10);
	CHECK(t.in_schedule >= t.us_all * 95 / 100);
	CHECK_INT(t.us_all, RISE(a, b, SP_STAT_OFFCPU_USEC));
}

/* Without the tables (the kernel's frame-pointer walk), the frame that
 * called into libc is lost: what makes sleep_here visible is the walker. */
static void
test_fp_mode(void)
{
	struct sampler_stats a, b;
	struct worker w[5];
	struct tally t;

	CHECK_INT(sampler_set_offcpu(g.s, true), 0);
	CHECK_INT(sampler_set_unwind_mode(g.s, SP_UNWIND_FP), 0);
	t = sleep_on(g.s, w, 0.5, &a, &b);
	CHECK_INT(sampler_set_unwind_mode(g.s, SP_UNWIND_AUTO), 0);
	CHECK_INT(sampler_set_offcpu(g.s, false), 0);
	printf("fp mode: sleeper %llu us off-CPU, %llu under sleep_here\n",
	       (unsigned long long)t.us_tid[0], (unsigned long long)t.us_known[0]);
	CHECK(within(t.us_tid[0], wall_us(&w[0]), 0.25));
	CHECK(t.us_known[0] < t.us_tid[0] / 2);
}

/* A new period samples at that period and counts that many faults a
 * sample; 0 is refused. */
static void
test_pagefault_period(void)
{
	struct worker w[5] = { { 0 } };
	void *(*const fn[])(void *) = { toucher };
	struct sampler_stats a, b;
	struct tally t = { .w = w };

	CHECK_INT(sampler_set_pagefault_period(g.s, 0), -EINVAL);
	CHECK_INT(sampler_set_pagefault(g.s, true), 0);
	CHECK_INT(sampler_set_pagefault_period(g.s, 0), -EINVAL);
	CHECK_INT(sampler_set_pagefault_period(g.s, 10), 0);
	w[4] = (struct worker){ .name = "toucher" };
	start(g.s, &a);
	run_workers(g.s, w + 4, fn, 1, &t, -1, 0);
	finish(g.s, &t);
	b = stats_of(g.s);
	CHECK_INT(sampler_set_pagefault_period(g.s, SAMPLER_PAGEFAULT_PERIOD), 0);
	CHECK_INT(sampler_set_pagefault(g.s, false), 0);
	printf("period 10: %ld faults, %llu estimated from %llu samples\n", w[4].faults,
	       (unsigned long long)t.faults_tid,
	       (unsigned long long)RISE(a, b, SP_STAT_PAGEFAULT_SAMPLES));
	CHECK(within(t.faults_tid, w[4].faults, 0.25));
	CHECK_INT(t.faults_all, RISE(a, b, SP_STAT_PAGEFAULT_SAMPLES) * 10);
}

struct unseen {
	pid_t	tid;
	double	slept;			/* the part seen whole: µs */
	int	go;			/* main: 1 disabled, 2 enabled again */
};

static void
pin_to(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

/* Sleeps while the sampler is enabled, wakes while it is disabled, then
 * (enabled again) is preempted by a hog on its CPU, then sleeps 0.3 s. */
static void *
unseen_wake(void *arg)
{
	struct unseen *u = arg;
	double t0;

	pin_to(1);
	u->tid = gettid();
	while (__atomic_load_n(&u->go, __ATOMIC_ACQUIRE) < 1)
		sleep_here(0.01);
	while (__atomic_load_n(&u->go, __ATOMIC_ACQUIRE) < 2)
		spin_here(0.001);
	spin_here(0.3);
	t0 = now_s();
	sleep_here(0.3);
	u->slept = (now_s() - t0) * 1e6;
	return NULL;
}

static void *
hog(void *arg)
{
	pin_to(1);
	spin_here(*(double *)arg);
	return NULL;
}

/* A sleep whose start was seen before the program was detached, and whose
 * end was not, is never counted: after re-attaching, the thread's next
 * switch-in (a preemption) must not close it. */
static void
test_epoch(void)
{
	struct unseen u = { 0 };
	struct tally t = { 0 };
	struct worker w[5] = { { 0 } };
	double hog_s = 1.0;
	pthread_t th, h;

	t.w = w;
	CHECK_INT(sampler_set_offcpu(g.s, true), 0);
	select_self(g.s);
	CHECK_INT(pthread_create(&th, NULL, unseen_wake, &u), 0);
	usleep(200000);
	CHECK_INT(sampler_set_enabled(g.s, false), 0);
	__atomic_store_n(&u.go, 1, __ATOMIC_RELEASE);
	usleep(200000);
	CHECK_INT(sampler_drain(g.s, discard, NULL), 0);	/* what was seen whole */
	CHECK_INT(sampler_set_enabled(g.s, true), 0);
	CHECK_INT(pthread_create(&h, NULL, hog, &hog_s), 0);
	__atomic_store_n(&u.go, 2, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	pthread_join(h, NULL);
	w[0].tid = u.tid;
	finish(g.s, &t);
	CHECK_INT(sampler_set_offcpu(g.s, false), 0);
	printf("epoch: %llu us counted for a thread that slept %.0f us while watched\n",
	       (unsigned long long)t.us_tid[0], u.slept);
	CHECK(within(t.us_tid[0], u.slept, 0.25));
}

/* Moving to a larger BPF object keeps the profiles on. */
static void
test_reconfigure(void)
{
	struct sampler_config big = { .frequency_hz = 99, .interval_ms = 5000, .heatmap_slots = 50 };
	struct sampler_config back = { .frequency_hz = 99, .interval_ms = 1000, .heatmap_slots = 50 };
	struct sampler_stats a, b;
	struct worker w[5];
	struct tally t;

	CHECK_INT(sampler_set_offcpu(g.s, true), 0);
	CHECK_INT(sampler_reconfigure(g.s, &big, discard, NULL), 0);
	t = sleep_on(g.s, w, 0.5, &a, &b);
	CHECK_INT(sampler_reconfigure(g.s, &back, discard, NULL), 0);
	CHECK_INT(sampler_set_offcpu(g.s, false), 0);
	printf("reconfigure: sleeper %.0f us wall, %llu us off-CPU\n", wall_us(&w[0]),
	       (unsigned long long)t.us_tid[0]);
	CHECK(within(t.us_tid[0], wall_us(&w[0]), 0.25));
}

int
main(void)
{
	struct sampler_config cfg = { .frequency_hz = 99, .interval_ms = 1000, .heatmap_slots = 50 };
	int err;

	prctl(PR_SET_NAME, "test_offcpu");
	if (geteuid() != 0)
		unit_skip("test_offcpu", "needs root to load BPF programs");
	err = sampler_open(&g.s, &cfg);
	CHECK_INT(err, 0);
	if (err < 0)
		return unit_report("test_offcpu");
	g.sym = symbolizer_new(64 << 20);
	CHECK(g.sym != NULL);
	if (!g.sym || !glue_open(&g, NULL))
		return unit_report("test_offcpu");
	describe(&g, getpid());
	test_known_answers();
	test_min_block();
	test_sample_short();
	test_selection();
	test_off_costs_nothing();
	test_raw_tracepoint();
	test_fp_mode();
	test_pagefault_period();
	test_reconfigure();
	test_epoch();
	unwinder_free(g.u);
	symbolizer_free(g.sym);
	sampler_close(g.s);
	return unit_report("test_offcpu");
}
