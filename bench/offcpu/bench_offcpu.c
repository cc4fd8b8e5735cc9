/*
 * bench_offcpu.c - what the off-CPU and page-fault profiles cost; built
 * and run by bench/offcpu/run, which says what it prints.
 *
 * One process: pmda/sampler/ as the PMDA drives it (on-CPU at 99 Hz on
 * every CPU, all processes selected, a drain every second), this process
 * described to the walker (unwind tables, as the agent does), and a
 * workload of its own threads.  Arms alternate within each round, so
 * every arm sees the same machine load; the summary takes medians.
 */
#include <errno.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "unwind_testlib.h"
#include "peer.skel.h"

#define MAX_ROUNDS	15
#define TOUCH_BYTES	(16u << 20)

static struct glue g;
static struct peer_bpf *peer;
static double dur_s = 3, warm_s = 0.5;
static int rounds = 3;
static atomic_ulong work;		/* round trips, or pages touched */
static atomic_int stop;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
discard(void *arg, const struct sampled_stack *st)
{
	if (st->profile != SAMPLER_ONCPU)
		*(uint64_t *)arg += st->count;
}

/* ---- workloads ---- */

static int a2b[2], b2a[2];

static void
pin_last_cpu(void)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(sysconf(_SC_NPROCESSORS_ONLN) - 1, &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

/* Two threads on one CPU hand a byte back and forth: every hand-over is
 * a sleep and a wake-up, two context switches per round trip. */
static void *
ping(void *arg)
{
	char c = 0;

	(void)arg;
	pin_last_cpu();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (write(a2b[1], &c, 1) != 1 || read(b2a[0], &c, 1) != 1)
			break;
		atomic_fetch_add_explicit(&work, 1, memory_order_relaxed);
	}
	return NULL;
}

static void *
pong(void *arg)
{
	char c;

	(void)arg;
	pin_last_cpu();
	while (read(a2b[0], &c, 1) == 1 && write(b2a[1], &c, 1) == 1)
		;
	return NULL;
}

/*
 * 16 threads take one mutex in turn around a short critical section.  A
 * priority-inheritance mutex: the kernel hands it to the first waiter at
 * each unlock (a lock convoy, one sleep and one wake-up per lock, ~100k
 * switches/s here).  A default glibc mutex lets the unlocker take it back
 * before the woken waiter runs, and switched ~1-2k times a second: a
 * loop that would measure nothing.
 */
#define MUTEX_THREADS	16
#define MUTEX_INSIDE	100		/* spins holding the lock */
#define MUTEX_OUTSIDE	100		/* and between locks */
static pthread_mutex_t contended;

static void *
contender(void *arg)
{
	volatile unsigned spin;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		pthread_mutex_lock(&contended);
		for (spin = 0; spin < MUTEX_INSIDE; spin++)
			;
		pthread_mutex_unlock(&contended);
		atomic_fetch_add_explicit(&work, 1, memory_order_relaxed);
		for (spin = 0; spin < MUTEX_OUTSIDE; spin++)
			;
	}
	return NULL;
}

/* Fresh pages, one fault each: map, touch, unmap. */
static void *
toucher(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		volatile char *p = mmap(NULL, TOUCH_BYTES, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		madvise((void *)p, TOUCH_BYTES, MADV_NOHUGEPAGE);
		for (size_t at = 0; at < TOUCH_BYTES; at += 4096)
			p[at] = 1;
		munmap((void *)p, TOUCH_BYTES);
		atomic_fetch_add_explicit(&work, TOUCH_BYTES / 4096, memory_order_relaxed);
	}
	return NULL;
}

/* ---- arms ---- */

struct arm {
	const char	*name;
	void		(*on)(const struct arm *), (*off)(const struct arm *);
	unsigned	arg, arg2;	/* off-CPU: min_us, sample */
	int		prog;		/* 0 none, 1 stackprof sched_switch, 2 stackprof faults,
					   3 peer_switch, 4 peer_fault, 5 the peer program named */
	const char	*peer_prog;	/* 5: peer.bpf.c's program attached */
};

static struct bpf_link *peer_link, **peer_fault_links;
static int ncpus;

static void nothing(const struct arm *a) { (void)a; }

static void
offcpu_on(const struct arm *a)
{
	sampler_set_offcpu_min_us(g.s, a->arg);
	sampler_set_offcpu_sample(g.s, a->arg2);
	sampler_set_offcpu(g.s, true);
}

static void offcpu_off(const struct arm *a) { (void)a; sampler_set_offcpu(g.s, false); }

/* the earlier design: counted blocks stored at their syscall exit */
static void
sys_exit_on(const struct arm *a)
{
	sampler_offcpu_by_sys_exit(g.s, true);
	offcpu_on(a);
}

static void
sys_exit_off(const struct arm *a)
{
	offcpu_off(a);
	sampler_offcpu_by_sys_exit(g.s, false);
}

/* off-CPU with its wakers: the sched_waking program too */
static void
offwake_on(const struct arm *a)
{
	sampler_set_offwake(g.s, true);
	offcpu_on(a);
}

static void
offwake_off(const struct arm *a)
{
	offcpu_off(a);
	sampler_set_offwake(g.s, false);
}

static void
fault_on(const struct arm *a)
{
	sampler_set_pagefault_period(g.s, a->arg);
	sampler_set_pagefault(g.s, true);
}

static void fault_off(const struct arm *a) { (void)a; sampler_set_pagefault(g.s, false); }

static void
peer_switch_on(const struct arm *a)
{
	(void)a;
	peer_link = bpf_program__attach(peer->progs.peer_switch);
}

static void
peer_switch_off(const struct arm *a)
{
	(void)a;
	bpf_link__destroy(peer_link);
	peer_link = NULL;
}

/* Peer.bpf.c's programs the arm names ("a" or "a+b"), attached for it
 * (the empty ones: the floor of each hook, and of two together). */
#define NAMED_MAX	2
static struct bpf_link *named_links[NAMED_MAX];

/* The arm's i-th program; NULL past the last.  The first is the one
 * whose ns per run is printed. */
static struct bpf_program *
named_nth(const struct arm *a, int i)
{
	char name[64], *part, *save = NULL;

	snprintf(name, sizeof(name), "%s", a->peer_prog);
	for (part = strtok_r(name, "+", &save); part && i > 0; part = strtok_r(NULL, "+", &save))
		i--;
	return part ? bpf_object__find_program_by_name(peer->obj, part) : NULL;
}

static struct bpf_program *
named(const struct arm *a)
{
	return named_nth(a, 0);
}

static void
named_on(const struct arm *a)
{
	struct bpf_program *p;

	for (int i = 0; i < NAMED_MAX && (p = named_nth(a, i)); i++)
		if (!(named_links[i] = bpf_program__attach(p)))
			fprintf(stderr, "bench/offcpu: cannot attach %s\n", a->peer_prog);
}

static void
named_off(const struct arm *a)
{
	(void)a;
	for (int i = 0; i < NAMED_MAX; i++) {
		bpf_link__destroy(named_links[i]);
		named_links[i] = NULL;
	}
}

static void
peer_fault_on(const struct arm *a)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
					.config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = a->arg };

	peer_fault_links = calloc(ncpus, sizeof(*peer_fault_links));
	for (int cpu = 0; peer_fault_links && cpu < ncpus; cpu++) {
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd >= 0)
			peer_fault_links[cpu] = bpf_program__attach_perf_event(peer->progs.peer_fault, fd);
	}
}

static void
peer_fault_off(const struct arm *a)
{
	(void)a;
	for (int cpu = 0; peer_fault_links && cpu < ncpus; cpu++)
		bpf_link__destroy(peer_fault_links[cpu]);
	free(peer_fault_links);
	peer_fault_links = NULL;
}

/* Run time and runs of the arm's program so far. */
static void
prog_time(const struct arm *a, uint64_t *ns, uint64_t *runs)
{
	struct sampler_stats st;
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	struct bpf_program *p = a->prog == 3 ? peer->progs.peer_switch :
				a->prog == 5 ? named(a) : peer->progs.peer_fault;

	*ns = *runs = 0;
	if (a->prog == 1 || a->prog == 2) {
		sampler_read_stats(g.s, &st);
		*ns = a->prog == 1 ? st.offcpu_run_time_ns : st.pagefault_run_time_ns;
		*runs = a->prog == 1 ? st.offcpu_run_count : st.pagefault_run_count;
	} else if (a->prog >= 3 && bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) == 0) {
		*ns = info.run_time_ns;
		*runs = info.run_cnt;
	}
}

/* BPF time of every program of both objects: the on-CPU sampler, the
 * switch, syscall-exit and wake-up programs, the peer's. */
static uint64_t
all_time(void)
{
	struct bpf_program *prog;
	uint64_t ns, runs, total;

	sampler_bpf_total(g.s, &total, &runs);
	bpf_object__for_each_program(prog, peer->obj) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);

		if (bpf_program__fd(prog) >= 0 &&
		    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) == 0)
			total += info.run_time_ns;
	}
	(void)ns;
	return total;
}

/* The host's context switches so far (/proc/stat ctxt). */
static uint64_t
host_switches(void)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[256];
	unsigned long long n = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %llu", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/* ---- measuring ---- */

struct result {
	double	work_s;			/* work per second */
	double	work_cpu;		/* work per CPU second of this process (user +
					   system: the threads and the drains, and
					   the BPF run in their context) */
	double	switches_s;		/* the process's context switches per second */
	double	ns_run;			/* BPF ns per run of the arm's program */
	double	runs_s;
	double	ns_switch;		/* BPF ns of all programs per host switch */
	uint64_t drained;		/* off-CPU µs or faults the drains handed out */
};

static double
cpu_s(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + r.ru_stime.tv_sec +
	       r.ru_stime.tv_usec / 1e6;
}

static long
switches(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_nvcsw + r.ru_nivcsw;
}

/* Sleep s seconds, draining every second as the PMDA does. */
static void
run_for(double s, uint64_t *drained)
{
	double end = now_s() + s;

	while (now_s() < end) {
		double left = end - now_s();

		usleep((useconds_t)((left < 1 ? left : 1) * 1e6));
		sampler_drain(g.s, discard, drained);
	}
}

static struct result
measure(const struct arm *a)
{
	struct result r = { 0 };
	uint64_t ns0, runs0, ns1, runs1, w0, drained = 0, all0, hsw0;
	long sw0;
	double t0, c0;

	a->on(a);
	run_for(warm_s, &drained);
	prog_time(a, &ns0, &runs0);
	w0 = atomic_load(&work);
	sw0 = switches();
	c0 = cpu_s();
	all0 = all_time();
	hsw0 = host_switches();
	t0 = now_s();
	drained = 0;
	run_for(dur_s, &drained);
	t0 = now_s() - t0;
	r.work_s = (atomic_load(&work) - w0) / t0;
	c0 = cpu_s() - c0;
	r.work_cpu = c0 > 0 ? (atomic_load(&work) - w0) / c0 : 0;
	r.switches_s = (switches() - sw0) / t0;
	r.ns_switch = (double)(all_time() - all0) / (double)(host_switches() - hsw0 + 1);
	prog_time(a, &ns1, &runs1);
	r.runs_s = (runs1 - runs0) / t0;
	r.ns_run = runs1 > runs0 ? (double)(ns1 - ns0) / (runs1 - runs0) : 0;
	r.drained = drained;
	a->off(a);
	return r;
}

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median of field f of arm a over the rounds, and its spread. */
#define STAT(a, expr, lo, hi) ({ \
	double v_[MAX_ROUNDS]; \
	for (int r = 0; r < rounds; r++) { const struct result *x = &res[a][r]; \
		const struct result *b0 = &res[0][r]; (void)b0; v_[r] = (expr); } \
	qsort(v_, rounds, sizeof(double), cmp_double); \
	lo = v_[0]; hi = v_[rounds - 1]; \
	median(v_, rounds); })

/* Arms in turn, rounds times; arm 0 is the baseline.  Prints the table:
 * medians, and the ratio's and BPF cost's spread over the rounds. */
static void
compare(const char *what, const char *unit, const struct arm *arms, int narms)
{
	struct result res[12][MAX_ROUNDS];

	for (int r = 0; r < rounds; r++)
		for (int a = 0; a < narms; a++)
			res[a][r] = measure(&arms[a]);
	printf("\n%s (%d rounds of %.0f s, medians [min-max])\n", what, rounds, dur_s);
	printf("  %-34s %10s %21s %21s %10s %9s %17s\n", "arm", unit, "vs off (same round)",
	       "per CPU s vs off", "switches/s", "ns/run", "BPF ns/host switch");
	for (int a = 0; a < narms; a++) {
		double lo, hi, rlo, rhi, clo, chi, nlo, nhi, work, ratio, cratio, sw, ns, nsw;

		(void)lo;
		(void)hi;

		work = STAT(a, x->work_s, lo, hi);
		ratio = STAT(a, x->work_s / b0->work_s, rlo, rhi);
		cratio = STAT(a, x->work_cpu / b0->work_cpu, clo, chi);
		sw = STAT(a, x->switches_s, lo, hi);
		ns = STAT(a, x->ns_run, lo, hi);
		nsw = STAT(a, x->ns_switch, nlo, nhi);
		printf("  %-34s %10.0f %6.3f [%.3f-%.3f] %6.3f [%.3f-%.3f] %10.0f %9.0f %5.0f [%4.0f-%4.0f]\n",
		       arms[a].name, work, ratio, rlo, rhi, cratio, clo, chi, sw, ns, nsw, nlo, nhi);
	}
}

static void
start_threads(void *(*fn)(void *), int n, pthread_t *th)
{
	atomic_store(&stop, 0);
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, i == 1 && fn == ping ? pong : fn, NULL);
}

static void
pingpong(void)
{
	static const struct arm arms[] = {
		{ "off", nothing, nothing, 0, 0, 0, NULL },
		{ "stackprof off-CPU (defaults)", offcpu_on, offcpu_off, SAMPLER_OFFCPU_MIN_US,
		  SAMPLER_OFFCPU_SAMPLE, 1, NULL },
		{ "stackprof (defaults) at sys_exit", sys_exit_on, sys_exit_off, SAMPLER_OFFCPU_MIN_US,
		  SAMPLER_OFFCPU_SAMPLE, 1, NULL },
		{ "stackprof (1 ms, 1 in 100 shorter)", offcpu_on, offcpu_off, 1000, 100, 1, NULL },
		{ "stackprof (every block: min 0)", offcpu_on, offcpu_off, 0, 0, 1, NULL },
		{ "offcputime method (peer)", peer_switch_on, peer_switch_off, 0, 0, 3, NULL },
		{ "stackprof off-wake (defaults)", offwake_on, offwake_off, SAMPLER_OFFCPU_MIN_US,
		  SAMPLER_OFFCPU_SAMPLE, 1, NULL },
		{ "stackprof off-wake (every block)", offwake_on, offwake_off, 0, 0, 1, NULL },
		{ "empty tp_btf/sched_switch", named_on, named_off, 0, 0, 5, "empty_switch" },
		{ "empty tp_btf/sys_exit", named_on, named_off, 0, 0, 5, "empty_sys_exit" },
		{ "empty tp_btf/rseq_update", named_on, named_off, 0, 0, 5, "empty_rseq_update" },
		{ "empty sched_switch + rseq_update", named_on, named_off, 0, 0, 5,
		  "empty_switch+empty_rseq_update" },
	};
	pthread_t th[2];

	if (pipe(a2b) || pipe(b2a))
		exit(2);
	start_threads(ping, 2, th);
	compare("ping-pong over pipes, two threads on one CPU", "trips/s", arms,
		sizeof(arms) / sizeof(arms[0]));
	atomic_store(&stop, 1);
	pthread_join(th[0], NULL);
	close(a2b[1]);
	pthread_join(th[1], NULL);
}

static void
mutexes(void)
{
	static const struct arm arms[] = {
		{ "off", nothing, nothing, 0, 0, 0, NULL },
		{ "stackprof off-CPU (defaults)", offcpu_on, offcpu_off, SAMPLER_OFFCPU_MIN_US,
		  SAMPLER_OFFCPU_SAMPLE, 1, NULL },
		{ "stackprof (defaults) at sys_exit", sys_exit_on, sys_exit_off, SAMPLER_OFFCPU_MIN_US,
		  SAMPLER_OFFCPU_SAMPLE, 1, NULL },
		{ "stackprof (every block: min 0)", offcpu_on, offcpu_off, 0, 0, 1, NULL },
		{ "offcputime method (peer)", peer_switch_on, peer_switch_off, 0, 0, 3, NULL },
		{ "stackprof off-wake (defaults)", offwake_on, offwake_off, SAMPLER_OFFCPU_MIN_US,
		  SAMPLER_OFFCPU_SAMPLE, 1, NULL },
		{ "empty tp_btf/sched_switch", named_on, named_off, 0, 0, 5, "empty_switch" },
		{ "empty tp_btf/sys_exit", named_on, named_off, 0, 0, 5, "empty_sys_exit" },
		{ "empty tp_btf/rseq_update", named_on, named_off, 0, 0, 5, "empty_rseq_update" },
		{ "empty sched_switch + rseq_update", named_on, named_off, 0, 0, 5,
		  "empty_switch+empty_rseq_update" },
	};
	pthread_t th[MUTEX_THREADS];
	pthread_mutexattr_t attr;

	if (pthread_mutexattr_init(&attr) ||
	    pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT) ||
	    pthread_mutex_init(&contended, &attr))
		exit(2);
	start_threads(contender, MUTEX_THREADS, th);
	compare("16 threads contending for one mutex", "locks/s", arms,
		sizeof(arms) / sizeof(arms[0]));
	atomic_store(&stop, 1);
	for (int i = 0; i < MUTEX_THREADS; i++)
		pthread_join(th[i], NULL);
}

static void
faults(void)
{
	static const struct arm arms[] = {
		{ "off", nothing, nothing, 0, 0, 0, NULL },
		{ "stackprof page faults (1 in 100)", fault_on, fault_off, SAMPLER_PAGEFAULT_PERIOD, 0, 2, NULL },
		{ "stack count (peer, 1 in 100)", peer_fault_on, peer_fault_off, SAMPLER_PAGEFAULT_PERIOD,
		  0, 4, NULL },
	};
	pthread_t th;

	start_threads(toucher, 1, &th);
	compare("fresh pages, one thread (map, touch, unmap 16 MiB)", "pages/s", arms, 3);
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
}

int
main(void)
{
	struct sampler_config cfg = { .frequency_hz = 99, .interval_ms = 1000, .heatmap_slots = 50 };
	int stats_fd;

	dur_s = getenv("DUR") ? atof(getenv("DUR")) : dur_s;
	rounds = getenv("ROUNDS") ? atoi(getenv("ROUNDS")) : rounds;
	if (rounds < 1 || rounds > MAX_ROUNDS || dur_s <= 0)
		return 2;
	ncpus = libbpf_num_possible_cpus();
	if (sampler_open(&g.s, &cfg) < 0 || !(peer = peer_bpf__open_and_load()))
		return 1;
	g.sym = symbolizer_new(64 << 20);
	if (!g.sym || !glue_open(&g, NULL))
		return 1;
	describe(&g, getpid());
	/* until we exit; STATS=0: without, as in production (the stats' two
	 * clock reads a run are in every ratio otherwise; ns columns are 0) */
	stats_fd = getenv("STATS") && atoi(getenv("STATS")) == 0 ? -2
								 : bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd == -1 || stats_fd < -2)
		return 1;
	if (!getenv("ONLY") || strstr(getenv("ONLY"), "pipe"))
		pingpong();
	if (!getenv("ONLY") || strstr(getenv("ONLY"), "mutex"))
		mutexes();
	if (!getenv("ONLY") || strstr(getenv("ONLY"), "fault"))
		faults();
	peer_bpf__destroy(peer);
	unwinder_free(g.u);
	symbolizer_free(g.sym);
	sampler_close(g.s);
	if (stats_fd >= 0)
		close(stats_fd);
	return unit_failures ? 1 : 0;
}
