/*
 * test_sampler.c - the BPF sampler for real (root, real kernel, real BPF):
 * this process burns CPU in burn_cpu(), which lives in its own section so
 * its address range is known exactly (__start_/__stop_burn_text), and the
 * tests check what the sampler reports against what the process did.
 *
 * Tolerances: a CPU_CLOCK sample lands on us with probability (our CPU time
 * on that CPU) x rate, so over ~1 s at 199 Hz the count is ~200 +- ~15;
 * counts must be within 25% of rate x CPU time used.  Exactness is checked
 * where the design promises it: drained counts equal SP_STAT_SAMPLES.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "unit.h"
#include "sym_testlib.h"
#include "sampler/sampler.h"

#define FREQ	199

extern const char __start_burn_text[], __stop_burn_text[];
extern const char __start_wide_text[], __stop_wide_text[];

static struct sampler *s;

static double
clock_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spin until this thread has used `seconds` of CPU since the start. */
__attribute__((noinline, section("burn_text"))) static double
burn_cpu(double seconds)
{
	double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + seconds;
	volatile double x = 0;

	do {
		for (int i = 0; i < 200000; i++)
			x = x + i * 0.5;
	} while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end);
	return x;
}

static bool
in_burn(uint64_t ip)
{
	return ip >= (uintptr_t)__start_burn_text && ip < (uintptr_t)__stop_burn_text;
}

struct tally {
	pid_t		self, watch;	/* watch: another tgid to look for */
	uint64_t	self_samples, other_samples, watch_samples;
	uint64_t	leaf_in_burn, with_user_stack, comm_ok;
	uint64_t	named_thread;	/* comm "burner", pcomm ours, tid != tgid */
	uint64_t	entries;
	pid_t		tid_seen[8];
	int		ntids;
};

static void
count_stack(void *arg, const struct sampled_stack *st)
{
	struct tally *t = arg;
	char comm[16] = "";

	t->entries++;
	if ((pid_t)st->key->tgid == t->watch)
		t->watch_samples += st->count;
	if ((pid_t)st->key->tgid != t->self) {
		t->other_samples += st->count;
		return;
	}
	t->self_samples += st->count;
	if (st->nuser > 0)
		t->with_user_stack += st->count;
	if (st->nuser > 0 && in_burn(st->user_ips[0]))
		t->leaf_in_burn += st->count;
	prctl(PR_GET_NAME, comm);
	if (strncmp(st->key->pcomm, comm, sizeof(comm)) == 0)
		t->comm_ok += st->count;
	if (strncmp(st->key->comm, "burner", sizeof(comm)) == 0 && st->key->tid != st->key->tgid &&
	    strncmp(st->key->pcomm, comm, sizeof(comm)) == 0)
		t->named_thread += st->count;
	for (int i = 0; i < t->ntids; i++)
		if (t->tid_seen[i] == (pid_t)st->key->tid)
			return;
	if (t->ntids < 8)
		t->tid_seen[t->ntids++] = st->key->tid;
}

static void
drain_into(struct tally *t)
{
	CHECK_INT(sampler_drain(s, count_stack, t), 0);
}

static void
discard(void *arg, const struct sampled_stack *st)
{
	(void)arg;
	(void)st;
}

static uint64_t
stat_now(enum sp_stat which)
{
	struct sampler_stats st;

	CHECK_INT(sampler_read_stats(s, &st), 0);
	return st.stat[which];
}

static uint64_t
all_samples(void)
{
	struct sampler_stats st;

	sampler_read_stats(s, &st);
	return st.stat[SP_STAT_SAMPLES] + st.stat[SP_STAT_FILTERED] + st.stat[SP_STAT_IDLE];
}

static void
select_self(void)
{
	pid_t self = getpid();

	CHECK_INT(sampler_set_filter(s, false, &self, 1), 0);
}

static void
select_none(void)
{
	CHECK_INT(sampler_set_filter(s, false, NULL, 0), 0);
}

/* Counters read after this start from empty maps: a sample of ours taken
 * between a test's own sampler_open and its baseline would be drained
 * after the baseline but counted before it. */
static void
select_none_of(struct sampler *o)
{
	CHECK_INT(sampler_set_filter(o, false, NULL, 0), 0);
	CHECK_INT(sampler_drain(o, discard, NULL), 0);
}

static bool
within(double got, double want, double tolerance)
{
	return got >= want * (1 - tolerance) && got <= want * (1 + tolerance);
}

/* Samples of our own burn arrive with our tgid, our name, our stack. */
static void
test_samples_arrive(void)
{
	struct tally t = { .self = getpid() };
	uint64_t s0, s1, lost0, lost1;
	double cpu0, cpu;

	select_none();
	sampler_drain(s, discard, NULL);
	s0 = stat_now(SP_STAT_SAMPLES);
	lost0 = stat_now(SP_STAT_MAP_FULL);
	cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	select_self();
	burn_cpu(1.0);
	select_none();
	cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	drain_into(&t);
	s1 = stat_now(SP_STAT_SAMPLES);
	lost1 = stat_now(SP_STAT_MAP_FULL);

	printf("samples_arrive: %.3f s CPU, %llu samples (expect ~%.0f), %llu leaf in burn_cpu, "
	       "%llu with user stack, %llu entries\n", cpu, (unsigned long long)t.self_samples,
	       cpu * FREQ, (unsigned long long)t.leaf_in_burn,
	       (unsigned long long)t.with_user_stack, (unsigned long long)t.entries);
	CHECK(t.self_samples > 0);
	CHECK_INT(t.other_samples, 0);
	CHECK(within(t.self_samples, cpu * FREQ, 0.25));
	CHECK_INT(t.self_samples, s1 - s0);
	CHECK_INT(lost1 - lost0, 0);
	CHECK_INT(t.comm_ok, t.self_samples);
	CHECK(t.with_user_stack >= t.self_samples * 95 / 100);
	CHECK(t.leaf_in_burn >= t.self_samples * 80 / 100);
}

/* Burn in slices until told to stop. */
static void *
burn_until_stopped(void *arg)
{
	pthread_setname_np(pthread_self(), "burner");
	while (!__atomic_load_n((bool *)arg, __ATOMIC_RELAXED))
		burn_cpu(0.01);
	return NULL;
}

/* Drains racing with sampling lose nothing: what the drains hand out sums
 * to exactly what the BPF program counted for the selected process.  The
 * burn lasts until 10 drains have handed out samples of it and over 100
 * samples came, however slowly a loaded host runs it (the cap, 3000
 * drains, is for a sampler that hands out nothing). */
static void
test_drains_lose_nothing(void)
{
	struct tally t = { .self = getpid() };
	uint64_t s0, s1, drains0;
	struct sampler_stats st;
	bool stop = false;
	pthread_t th;
	int drains, fed = 0;

	select_none();
	sampler_drain(s, discard, NULL);
	sampler_read_stats(s, &st);
	s0 = st.stat[SP_STAT_SAMPLES];
	drains0 = st.drains;
	select_self();
	CHECK_INT(pthread_create(&th, NULL, burn_until_stopped, &stop), 0);
	for (drains = 0; (fed < 10 || t.self_samples <= 100) && drains < 3000; drains++) {
		uint64_t before = t.self_samples;

		drain_into(&t);
		fed += t.self_samples > before;
		usleep(30000);
	}
	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	select_none();
	drain_into(&t);
	sampler_read_stats(s, &st);
	s1 = st.stat[SP_STAT_SAMPLES];

	printf("drains_lose_nothing: %d drains during the burn (%d with its samples), drained %llu, "
	       "counted %llu, threads %d, %llu as thread \"burner\" of our process\n", drains + 1,
	       fed, (unsigned long long)t.self_samples, (unsigned long long)(s1 - s0), t.ntids,
	       (unsigned long long)t.named_thread);
	CHECK(fed >= 10);
	CHECK_INT(st.drains - drains0, drains + 1);
	CHECK(t.self_samples > 100);
	CHECK_INT(t.self_samples, s1 - s0);
	CHECK_INT(t.other_samples, 0);
	CHECK(t.ntids >= 1);
	/* the thread's samples carry its own name and the process's name */
	CHECK(t.named_thread >= t.self_samples * 90 / 100);
}

static pid_t
spawn_burner(double seconds)
{
	pid_t pid = fork();

	if (pid == 0) {
		burn_cpu(seconds);
		_exit(0);
	}
	return pid;
}

/* A process outside the filter is never counted, only its FILTERED samples;
 * with the filter off it is. */
static void
test_filter(void)
{
	pid_t child = spawn_burner(1.5);
	struct tally t = { .self = getpid(), .watch = child };
	struct tally all = { .self = getpid(), .watch = child };
	uint64_t f0, f1;

	CHECK(child > 0);
	select_none();
	sampler_drain(s, discard, NULL);
	f0 = stat_now(SP_STAT_FILTERED);
	select_self();
	burn_cpu(0.4);
	select_none();
	drain_into(&t);
	f1 = stat_now(SP_STAT_FILTERED);
	CHECK_INT(sampler_set_filter(s, true, NULL, 0), 0);
	usleep(400000);
	select_none();
	drain_into(&all);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	printf("filter: self %llu, child while filtered %llu (filtered counter +%llu), "
	       "child unfiltered %llu\n", (unsigned long long)t.self_samples,
	       (unsigned long long)t.watch_samples, (unsigned long long)(f1 - f0),
	       (unsigned long long)all.watch_samples);
	CHECK(t.self_samples > 0);
	CHECK_INT(t.watch_samples, 0);
	CHECK_INT(t.other_samples, 0);
	CHECK(f1 - f0 > 0);
	CHECK(all.watch_samples > 0);
}

/* Burn only during the first 200 ms of each wall-clock second. */
static void test_heatmap(const char *clock);

/* Kernels without bpf_ktime_get_tai_ns: monotonic clock plus the offset
 * user space refreshes at each drain puts samples in the same slots. */
static void
test_heatmap_without_tai(void)
{
	struct sampler_config cfg = { .frequency_hz = FREQ, .interval_ms = 1000, .heatmap_slots = 50 };
	struct sampler *saved = s;

	setenv("STACKPROF_SAMPLER_NO_TAI", "1", 1);
	CHECK_INT(sampler_open(&s, &cfg), 0);
	unsetenv("STACKPROF_SAMPLER_NO_TAI");
	if (s)
		test_heatmap("monotonic + offset");
	sampler_close(s);
	s = saved;
}

static void
burn_early_in_seconds(int seconds)
{
	for (int i = 0; i < seconds; i++) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		usleep((1000000000L - now.tv_nsec) / 1000 + 2000);	/* next second */
		do {	/* small steps: stop well inside the first 200 ms */
			burn_cpu(0.002);
			clock_gettime(CLOCK_REALTIME, &now);
		} while (now.tv_nsec < 180000000L);
	}
}

/* The heat map counts exactly the selected samples, in wall-clock slots. */
static void
test_heatmap(const char *clock)
{
	uint64_t slots[50], sum = 0, early = 0, s0, s1;

	select_none();
	CHECK_INT(sampler_set_heatmap_slots(s, 50), 0);
	CHECK_INT(sampler_read_heatmap(s, slots, 50), 0);
	for (int i = 0; i < 50; i++)
		sum += slots[i];
	CHECK_INT(sum, 0);
	s0 = stat_now(SP_STAT_SAMPLES);
	select_self();
	burn_early_in_seconds(3);
	select_none();
	s1 = stat_now(SP_STAT_SAMPLES);
	CHECK_INT(sampler_read_heatmap(s, slots, 50), 0);
	for (int i = 0; i < 50; i++) {
		sum += slots[i];
		if (i < 10)
			early += slots[i];
	}
	printf("heatmap (%s): %llu samples, %llu in heat map, %llu in slots 0-9\n", clock,
	       (unsigned long long)(s1 - s0), (unsigned long long)sum, (unsigned long long)early);
	CHECK(sum > 0);
	CHECK_INT(sum, s1 - s0);
	CHECK(early >= sum * 80 / 100);
	/* per-CPU rows add up to the summed heat map */
	{
		int ncpus = sampler_possible_cpus(s);
		uint64_t *rows = calloc((size_t)ncpus * 50, sizeof(*rows)), rowsum = 0;

		CHECK(ncpus > 0 && rows != NULL);
		if (rows) {
			CHECK_INT(sampler_read_heatmap_cpus(s, rows, 50, ncpus), ncpus);
			for (int i = 0; i < ncpus * 50; i++)
				rowsum += rows[i];
			CHECK_INT(rowsum, sum);
			free(rows);
		}
	}
	CHECK_INT(sampler_set_heatmap_slots(s, 0), -EINVAL);
	CHECK_INT(sampler_set_heatmap_slots(s, SP_HEATMAP_MAX_SLOTS + 1), -EINVAL);
	CHECK_INT(sampler_read_heatmap(s, slots, SP_HEATMAP_MAX_SLOTS + 1), -EINVAL);
	sampler_drain(s, discard, NULL);
}

#define EXEC_CHILDREN	200

struct exec_seen {
	pid_t	want[EXEC_CHILDREN];
	int	nwant, seen, total;
};

static void
note_exec(void *arg, pid_t tgid)
{
	struct exec_seen *e = arg;

	e->total++;
	for (int i = 0; i < e->nwant; i++)
		if (e->want[i] == tgid) {
			e->want[i] = 0;		/* each counted once */
			e->seen++;
		}
}

/* Every exec anywhere, filtered or not, reaches sampler_poll_execs: a burst
 * of short-lived processes, none missed, none lost. */
static void
test_exec_notify(void)
{
	struct exec_seen e = { 0 };
	struct pollfd pfd = { .fd = sampler_exec_fd(s), .events = POLLIN };
	double deadline;
	uint64_t x0 = stat_now(SP_STAT_EXECS), lost0 = stat_now(SP_STAT_EXEC_LOST);

	CHECK(pfd.fd >= 0);
	select_none();
	sampler_poll_execs(s, note_exec, &e);		/* older execs */
	e.total = 0;
	for (e.nwant = 0; e.nwant < EXEC_CHILDREN; e.nwant++) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		e.want[e.nwant] = pid;
	}
	for (int i = 0; i < EXEC_CHILDREN; i++)
		wait(NULL);
	deadline = clock_s(CLOCK_MONOTONIC) + 2;
	while (e.seen < EXEC_CHILDREN && clock_s(CLOCK_MONOTONIC) < deadline)
		if (poll(&pfd, 1, 100) > 0)
			CHECK(sampler_poll_execs(s, note_exec, &e) >= 0);
	printf("exec_notify: %d of %d children seen, %d exec(s) in all\n", e.seen,
	       EXEC_CHILDREN, e.total);
	CHECK_INT(e.seen, EXEC_CHILDREN);
	CHECK(stat_now(SP_STAT_EXECS) - x0 >= EXEC_CHILDREN);
	CHECK_INT(stat_now(SP_STAT_EXEC_LOST) - lost0, 0);
}

/* Our samples per second of our CPU time while sampler o burns cpu_s. */
static double
self_rate_of(struct sampler *o, double cpu_s)
{
	struct sampler_stats a, b;
	double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	pid_t self = getpid();

	sampler_read_stats(o, &a);
	CHECK_INT(sampler_set_filter(o, false, &self, 1), 0);
	burn_cpu(cpu_s);
	CHECK_INT(sampler_set_filter(o, false, NULL, 0), 0);
	sampler_read_stats(o, &b);
	return (b.stat[SP_STAT_SAMPLES] - a.stat[SP_STAT_SAMPLES]) /
	       (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0);
}

/* Our samples per second of our CPU time while burning `cpu_s`; every
 * sample of any process counts in *all (0 means nothing sampled at all). */
static double
self_rate(double cpu_s, uint64_t *all)
{
	uint64_t n0 = stat_now(SP_STAT_SAMPLES), a0 = all_samples();
	double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);

	select_self();
	burn_cpu(cpu_s);
	select_none();
	*all = all_samples() - a0;
	return (stat_now(SP_STAT_SAMPLES) - n0) / (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0);
}

/* A refused rate changes nothing; a new rate and on/off take effect.
 * (Idle CPUs are not always sampled, so rates are per CPU second used.) */
static void
test_controls(void)
{
	double r199, r_after_bad, r99, r_off;
	uint64_t all, all_off;

	r199 = self_rate(0.6, &all);
	CHECK(sampler_set_frequency(s, 10000000) < 0);
	CHECK_INT(sampler_set_frequency(s, 0), -EINVAL);
	r_after_bad = self_rate(0.6, &all);
	CHECK_INT(sampler_set_frequency(s, 99), 0);
	r99 = self_rate(0.6, &all);
	CHECK_INT(sampler_set_enabled(s, false), 0);
	r_off = self_rate(0.3, &all_off);
	CHECK(sampler_set_frequency(s, 10000000) < 0);
	CHECK_INT(sampler_set_frequency(s, FREQ), 0);
	CHECK_INT(sampler_set_enabled(s, true), 0);
	printf("controls: %.0f/CPU-s at %d Hz, %.0f after a refused rate, %.0f at 99 Hz, "
	       "%.0f disabled (%llu samples of anything)\n", r199, FREQ, r_after_bad, r99,
	       r_off, (unsigned long long)all_off);
	CHECK(within(r199, FREQ, 0.25));
	CHECK(within(r_after_bad, FREQ, 0.25));
	CHECK(within(r99, 99, 0.25));
	CHECK_INT(all_off, 0);
	CHECK(within(self_rate(0.6, &all), FREQ, 0.25));
}

/* ~4096 straight-line statements: each sample's innermost ip, so its user
 * stack and its key, is almost always new. */
#define STEP	x = x * 2654435761u + 1;
#define STEP16	STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP
#define STEP256	STEP16 STEP16 STEP16 STEP16 STEP16 STEP16 STEP16 STEP16 \
		STEP16 STEP16 STEP16 STEP16 STEP16 STEP16 STEP16 STEP16
__attribute__((noinline, section("wide_text"))) static unsigned
burn_wide(double seconds)
{
	double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + seconds;
	volatile unsigned x = 1;

	do {
		STEP256 STEP256 STEP256 STEP256 STEP256 STEP256 STEP256 STEP256
		STEP256 STEP256 STEP256 STEP256 STEP256 STEP256 STEP256 STEP256
	} while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end);
	return x;
}

struct overload_tally {
	uint64_t	samples, with_user_stack, user_lost, entries;
};

static void
count_overload(void *arg, const struct sampled_stack *st)
{
	struct overload_tally *t = arg;

	if ((pid_t)st->key->tgid != getpid())
		return;
	t->entries++;
	t->samples += st->count;
	if (st->nuser > 0)
		t->with_user_stack += st->count;
	if (st->key->user_stack == SP_USTACK_LOST)
		t->user_lost += st->count;
}

/*
 * Far more distinct stacks than the smallest maps hold, in one generation:
 * losses are counted, never silent (drained + MAP_FULL == SAMPLES; a user
 * stack that found its map full keeps its sample, as SP_USTACK_LOST, and
 * is counted), 64-bit keys do not collide, and the drain leaves the maps
 * empty for the next generation.
 */
static void
test_overload(void)
{
	struct sampler_config small = { .frequency_hz = 1, .interval_ms = 1, .heatmap_slots = 50 };
	struct overload_tally t = { 0 }, after = { 0 };
	struct sampler_stats a, b, c;
	struct sampler *o;
	pid_t self = getpid();

	CHECK_INT(sampler_open(&o, &small), 0);
	if (!o)
		return;
	CHECK_INT(sampler_set_frequency(o, 4000), 0);
	select_none_of(o);
	sampler_read_stats(o, &a);
	CHECK_INT(sampler_set_filter(o, false, &self, 1), 0);
	burn_wide(0.8);
	CHECK_INT(sampler_set_filter(o, false, NULL, 0), 0);
	CHECK_INT(sampler_drain(o, count_overload, &t), 0);
	sampler_read_stats(o, &b);
	/* a second generation, lightly used: maps must have been emptied */
	CHECK_INT(sampler_drain(o, count_overload, &after), 0);
	CHECK_INT(sampler_set_frequency(o, 99), 0);
	CHECK_INT(sampler_set_filter(o, false, &self, 1), 0);
	burn_cpu(0.5);
	CHECK_INT(sampler_set_filter(o, false, NULL, 0), 0);
	CHECK_INT(sampler_drain(o, count_overload, &after), 0);
	CHECK_INT(sampler_drain(o, count_overload, &after), 0);
	sampler_read_stats(o, &c);
	sampler_close(o);

	printf("overload: %llu samples, %llu drained in %llu keys, %llu map full, "
	       "%llu user stacks not stored (map full), %llu drained as lost, %llu collisions; "
	       "after: %llu samples, %llu with user stack\n",
	       (unsigned long long)(b.stat[SP_STAT_SAMPLES] - a.stat[SP_STAT_SAMPLES]),
	       (unsigned long long)t.samples, (unsigned long long)t.entries,
	       (unsigned long long)(b.stat[SP_STAT_MAP_FULL] - a.stat[SP_STAT_MAP_FULL]),
	       (unsigned long long)(b.stat[SP_STAT_USTACK_MAP_FULL] - a.stat[SP_STAT_USTACK_MAP_FULL]),
	       (unsigned long long)t.user_lost,
	       (unsigned long long)(b.stat[SP_STAT_USTACK_COLLISION] - a.stat[SP_STAT_USTACK_COLLISION]),
	       (unsigned long long)after.samples, (unsigned long long)after.with_user_stack);
	CHECK(b.stat[SP_STAT_MAP_FULL] > a.stat[SP_STAT_MAP_FULL]);
	CHECK_INT(t.samples + (b.stat[SP_STAT_MAP_FULL] - a.stat[SP_STAT_MAP_FULL]),
		  b.stat[SP_STAT_SAMPLES] - a.stat[SP_STAT_SAMPLES]);
	CHECK(b.stat[SP_STAT_USTACK_MAP_FULL] > a.stat[SP_STAT_USTACK_MAP_FULL]);
	CHECK(t.user_lost <= b.stat[SP_STAT_USTACK_MAP_FULL] - a.stat[SP_STAT_USTACK_MAP_FULL]);
	CHECK_INT(t.with_user_stack + t.user_lost, t.samples);
	CHECK_INT(b.stat[SP_STAT_USTACK_COLLISION] - a.stat[SP_STAT_USTACK_COLLISION], 0);
	CHECK(after.samples > 0);
	CHECK_INT(after.with_user_stack, after.samples);
	CHECK_INT(c.stat[SP_STAT_USTACK_MAP_FULL] - b.stat[SP_STAT_USTACK_MAP_FULL], 0);
	CHECK_INT(c.stat[SP_STAT_MAP_FULL] - b.stat[SP_STAT_MAP_FULL], 0);
}

struct collision_tally {
	pid_t		wide_tid;
	uint64_t	samples, lost, burn_in_wide, wide_in_burn, keys;
};

static bool
in_wide(uint64_t ip)
{
	return ip >= (uintptr_t)__start_wide_text && ip < (uintptr_t)__stop_wide_text;
}

/* A misplaced stack shows the other thread's leaf: the wide thread's key
 * with burn_cpu's, or another thread's key with burn_wide's.  (The main
 * thread is also sampled in pthread_create and pthread_join, which is no
 * misplacement.) */
static void
count_collisions(void *arg, const struct sampled_stack *st)
{
	struct collision_tally *t = arg;
	bool leaf_in_burn = st->nuser > 0 && in_burn(st->user_ips[0]);
	bool leaf_in_wide = st->nuser > 0 && in_wide(st->user_ips[0]);

	if ((pid_t)st->key->tgid != getpid())
		return;
	t->samples += st->count;
	if (st->key->user_stack == SP_USTACK_LOST) {
		t->lost += st->count;
		return;
	}
	t->keys++;
	if ((pid_t)st->key->tid == t->wide_tid && leaf_in_burn)
		t->wide_in_burn += st->count;
	if ((pid_t)st->key->tid != t->wide_tid && leaf_in_wide)
		t->burn_in_wide += st->count;
}

static void *
wide_thread(void *arg)
{
	*(pid_t *)arg = gettid();
	burn_wide(0.6);
	return NULL;
}

/*
 * User stacks are keyed by a hash of their pcs.  With the hash cut to 1
 * bit (STACKPROF_SAMPLER_HASH_BITS), two threads with different stacks
 * (one in burn_cpu, one in burn_wide) meet under the same keys all the
 * time: a stack is never counted under another's key (the thread's key
 * would then show the other thread's leaf), and those that find both of
 * their keys taken are counted as collisions and kept as lost.
 */
static void
test_hash_collisions(void)
{
	struct sampler_config cfg = { .frequency_hz = FREQ, .interval_ms = 1000, .heatmap_slots = 50 };
	struct collision_tally t = { 0 };
	struct sampler_stats a, b;
	struct sampler *o;
	pid_t self = getpid();
	pthread_t th;

	setenv("STACKPROF_SAMPLER_HASH_BITS", "1", 1);
	CHECK_INT(sampler_open(&o, &cfg), 0);
	unsetenv("STACKPROF_SAMPLER_HASH_BITS");
	if (!o)
		return;
	select_none_of(o);
	sampler_read_stats(o, &a);
	CHECK_INT(sampler_set_filter(o, false, &self, 1), 0);
	CHECK_INT(pthread_create(&th, NULL, wide_thread, &t.wide_tid), 0);
	burn_cpu(0.6);
	pthread_join(th, NULL);
	CHECK_INT(sampler_set_filter(o, false, NULL, 0), 0);
	CHECK_INT(sampler_drain(o, count_collisions, &t), 0);
	sampler_read_stats(o, &b);
	sampler_close(o);
	printf("hash_collisions: %llu samples (counted %llu), %llu kept under %llu keys, %llu lost, "
	       "%llu collisions counted; misplaced: %llu + %llu\n",
	       (unsigned long long)t.samples,
	       (unsigned long long)(b.stat[SP_STAT_SAMPLES] - a.stat[SP_STAT_SAMPLES]),
	       (unsigned long long)(t.samples - t.lost),
	       (unsigned long long)t.keys, (unsigned long long)t.lost,
	       (unsigned long long)(b.stat[SP_STAT_USTACK_COLLISION] - a.stat[SP_STAT_USTACK_COLLISION]),
	       (unsigned long long)t.wide_in_burn, (unsigned long long)t.burn_in_wide);
	CHECK(t.samples > 100);
	CHECK(t.lost > 0);
	CHECK_INT(t.lost, b.stat[SP_STAT_USTACK_COLLISION] - a.stat[SP_STAT_USTACK_COLLISION]);
	CHECK_INT(t.samples, b.stat[SP_STAT_SAMPLES] - a.stat[SP_STAT_SAMPLES]);
	CHECK_INT(t.wide_in_burn, 0);
	CHECK_INT(t.burn_in_wide, 0);
}

/* The drain of kernels without batch map ops (get_next_key, lookup,
 * delete) is as exact as the batch one. */
static void
test_drain_without_batch(void)
{
	struct sampler_config cfg = { .frequency_hz = FREQ, .interval_ms = 1000, .heatmap_slots = 50 };
	struct tally t = { .self = getpid() }, empty = { .self = getpid() };
	struct sampler_stats a, b;
	struct sampler *o;
	pid_t self = getpid();

	setenv("STACKPROF_SAMPLER_NO_BATCH", "1", 1);
	CHECK_INT(sampler_open(&o, &cfg), 0);
	unsetenv("STACKPROF_SAMPLER_NO_BATCH");
	if (!o)
		return;
	select_none_of(o);
	sampler_read_stats(o, &a);
	CHECK_INT(sampler_set_filter(o, false, &self, 1), 0);
	burn_cpu(0.5);
	CHECK_INT(sampler_set_filter(o, false, NULL, 0), 0);
	CHECK_INT(sampler_drain(o, count_stack, &t), 0);
	CHECK_INT(sampler_drain(o, count_stack, &t), 0);
	CHECK_INT(sampler_drain(o, count_stack, &empty), 0);
	sampler_read_stats(o, &b);
	sampler_close(o);
	printf("drain_without_batch: drained %llu, counted %llu, %llu with user stack\n",
	       (unsigned long long)t.self_samples,
	       (unsigned long long)(b.stat[SP_STAT_SAMPLES] - a.stat[SP_STAT_SAMPLES]),
	       (unsigned long long)t.with_user_stack);
	CHECK(t.self_samples > 50);
	CHECK_INT(t.self_samples, b.stat[SP_STAT_SAMPLES] - a.stat[SP_STAT_SAMPLES]);
	CHECK_INT(t.with_user_stack, t.self_samples);
	CHECK_INT(empty.entries, 0);
}

/* A full table directory takes a new table once one is removed: its id
 * and rows come back after the fence's wait, never before (the reserve
 * path waits, then reclaims), and a removed id cannot be removed twice. */
static void
test_unwind_reuse(void)
{
	struct sampler_config cfg = { .frequency_hz = FREQ, .interval_ms = 1000, .heatmap_slots = 50,
				      .unwind_rows = 2 * SP_UNWIND_BLOCK_ROWS, .unwind_tables = 2 };
	struct sp_unwind_row rows[SP_UNWIND_BLOCK_ROWS];
	struct sampler_unwind_usage u;
	struct sampler *o;
	int a, b, c, d;

	memset(rows, 0, sizeof(rows));
	for (unsigned i = 0; i < SP_UNWIND_BLOCK_ROWS; i++)
		rows[i].pc = i * 16;
	CHECK_INT(sampler_open(&o, &cfg), 0);
	if (!o)
		return;
	a = sampler_unwind_table_add(o, 0x1000, rows, SP_UNWIND_BLOCK_ROWS);
	b = sampler_unwind_table_add(o, 0x2000, rows, SP_UNWIND_BLOCK_ROWS);
	CHECK(a >= 0 && b >= 0 && a != b);
	CHECK_INT(sampler_unwind_table_add(o, 0x3000, rows, SP_UNWIND_BLOCK_ROWS), -ENOSPC);
	CHECK_INT(sampler_unwind_table_remove(o, (uint32_t)a), 0);
	CHECK_INT(sampler_unwind_table_remove(o, (uint32_t)a), -ENOENT);
	sampler_unwind_usage(o, &u);
	CHECK_INT(u.tables, 1);
	CHECK_INT(u.rows, SP_UNWIND_BLOCK_ROWS);
	c = sampler_unwind_table_add(o, 0x3000, rows, SP_UNWIND_BLOCK_ROWS);
	CHECK_INT(c, a);		/* the retired id, reclaimed after the wait */
	CHECK_INT(sampler_unwind_table_add(o, 0x4000, rows, SP_UNWIND_BLOCK_ROWS), -ENOSPC);
	CHECK_INT(sampler_unwind_table_remove(o, (uint32_t)b), 0);
	CHECK_INT(sampler_unwind_table_remove(o, (uint32_t)c), 0);
	d = sampler_unwind_table_add(o, 0x5000, rows, SP_UNWIND_BLOCK_ROWS);
	CHECK(d == a || d == b);
	sampler_unwind_usage(o, &u);
	CHECK_INT(u.tables, 1);
	sampler_close(o);
	printf("unwind_reuse: ids %d %d, after removal %d, then %d\n", a, b, c, d);
}

struct reconfigure_run {
	struct sampler	*r;
	double		seconds;
};

static void *
burn_named(void *arg)
{
	pthread_setname_np(pthread_self(), "burner");
	burn_cpu(((struct reconfigure_run *)arg)->seconds);
	return NULL;
}

/*
 * A larger interval and rate need larger maps: sampling moves to a new BPF
 * object mid-burn, nothing counted is lost (drained == SAMPLES rise), the
 * counters and heat map carry on, the exec fd stays the same and works, and
 * a refused rate changes nothing.
 */
static void
test_reconfigure(void)
{
	struct sampler_config small = { .frequency_hz = 99, .interval_ms = 1000, .heatmap_slots = 50 };
	struct sampler_config big = { .frequency_hz = FREQ, .interval_ms = 5000, .heatmap_slots = 50 };
	struct sampler_config bad = { .frequency_hz = 10000000, .interval_ms = 9000, .heatmap_slots = 50 };
	struct tally t = { .self = getpid() };
	struct reconfigure_run run = { .seconds = 1.2 };
	struct sampler_stats a, b;
	uint64_t heat[50], heatsum = 0;
	struct exec_seen e = { 0 };
	struct pollfd pfd;
	pid_t self = getpid();
	pthread_t th;
	int fd0;

	CHECK_INT(sampler_open(&run.r, &small), 0);
	if (!run.r)
		return;
	fd0 = sampler_exec_fd(run.r);
	select_none_of(run.r);
	sampler_read_stats(run.r, &a);
	CHECK_INT(sampler_set_filter(run.r, false, &self, 1), 0);
	CHECK_INT(pthread_create(&th, NULL, burn_named, &run), 0);
	usleep(300000);
	CHECK_INT(sampler_reconfigure(run.r, &big, count_stack, &t), 0);
	pthread_join(th, NULL);
	CHECK(sampler_reconfigure(run.r, &bad, count_stack, &t) < 0);
	CHECK(within(self_rate_of(run.r, 0.5), FREQ, 0.25));
	CHECK_INT(sampler_set_filter(run.r, false, NULL, 0), 0);
	CHECK_INT(sampler_drain(run.r, count_stack, &t), 0);
	sampler_read_stats(run.r, &b);
	CHECK_INT(sampler_read_heatmap(run.r, heat, 50), 0);
	for (int i = 0; i < 50; i++)
		heatsum += heat[i];

	/* the exec queue survived the move */
	pfd.fd = sampler_exec_fd(run.r);
	pfd.events = POLLIN;
	CHECK_INT(pfd.fd, fd0);
	sampler_poll_execs(run.r, note_exec, &e);
	e.nwant = 1;
	e.want[0] = fork();
	if (e.want[0] == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(e.want[0], NULL, 0);
	for (int i = 0; i < 20 && !e.seen; i++)
		if (poll(&pfd, 1, 100) > 0)
			sampler_poll_execs(run.r, note_exec, &e);
	big.heatmap_slots = 20;
	CHECK_INT(sampler_reconfigure(run.r, &big, count_stack, &t), 0);
	CHECK_INT(sampler_read_heatmap(run.r, heat, 20), 0);
	sampler_close(run.r);

	printf("reconfigure: drained %llu, counted %llu, heat map %llu, exec after move seen %d\n",
	       (unsigned long long)t.self_samples,
	       (unsigned long long)(b.stat[SP_STAT_SAMPLES] - a.stat[SP_STAT_SAMPLES]),
	       (unsigned long long)heatsum, e.seen);
	CHECK(t.self_samples > 100);
	CHECK_INT(t.self_samples, b.stat[SP_STAT_SAMPLES] - a.stat[SP_STAT_SAMPLES]);
	CHECK_INT(heatsum, b.stat[SP_STAT_SAMPLES]);
	CHECK_INT(e.seen, 1);
	CHECK_INT(heat[0] + heat[19], 0);	/* slices changed: counts restarted */
}

/* A PMDA runs for months: disabling leaves no perf event, rate changes
 * leak nothing, closing leaves no BPF object behind. */
static void
test_no_leaks(void)
{
	struct sampler_config cfg = { .frequency_hz = 99, .interval_ms = 1000, .heatmap_slots = 50 };
	int bpf0 = count_fds("bpf"), perf0 = count_fds("perf_event"), perf1, bpf1, bpf2;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct sampler *o;

	CHECK_INT(sampler_open(&o, &cfg), 0);
	if (!o)
		return;
	CHECK_INT(count_fds("perf_event") - perf0, ncpus);
	bpf1 = count_fds("bpf");
	for (unsigned hz = 50; hz < 70; hz++)
		CHECK_INT(sampler_set_frequency(o, hz), 0);
	CHECK(sampler_set_frequency(o, 10000000) < 0);
	CHECK_INT(sampler_set_filter(o, false, NULL, 0), 0);
	CHECK_INT(sampler_set_filter(o, true, NULL, 0), 0);
	CHECK_INT(sampler_drain(o, discard, NULL), 0);
	perf1 = count_fds("perf_event") - perf0;
	bpf2 = count_fds("bpf");
	CHECK_INT(sampler_set_enabled(o, false), 0);
	printf("no_leaks: %d perf events on %ld CPUs after 21 rate changes, %d disabled; "
	       "bpf fds %d -> %d\n", perf1, ncpus, count_fds("perf_event") - perf0,
	       bpf1 - bpf0, bpf2 - bpf0);
	CHECK_INT(perf1, ncpus);
	CHECK_INT(bpf2, bpf1);
	CHECK_INT(count_fds("perf_event"), perf0);
	sampler_close(o);
	CHECK_INT(count_fds("bpf"), bpf0);
	CHECK_INT(count_fds("perf_event"), perf0);
}

/* Bad arguments are refused and change nothing. */
static void
test_bad_input(void)
{
	struct sampler_config bad = { .frequency_hz = 0, .interval_ms = 1000, .heatmap_slots = 50 };
	struct sampler *other = (struct sampler *)&bad;
	pid_t pids[] = { getpid(), -5 };

	CHECK_INT(sampler_open(&other, &bad), -EINVAL);
	CHECK(other == NULL);
	bad.frequency_hz = 99;
	bad.heatmap_slots = 0;
	CHECK_INT(sampler_open(&other, &bad), -EINVAL);
	bad.heatmap_slots = 50;
	bad.interval_ms = 0;
	CHECK_INT(sampler_open(&other, &bad), -EINVAL);
	CHECK_INT(sampler_set_filter(s, false, pids, 2), -EINVAL);
	CHECK_INT(sampler_set_filter(s, false, pids, 100000), -E2BIG);
}

int
main(void)
{
	struct sampler_config cfg = { .frequency_hz = FREQ, .interval_ms = 1000, .heatmap_slots = 50 };
	int err;

	prctl(PR_SET_NAME, "test_sampler");
	if (geteuid() != 0)
		unit_skip("test_sampler", "needs root to load BPF programs");
	err = sampler_open(&s, &cfg);
	CHECK_INT(err, 0);
	if (err < 0) {
		fprintf(stderr, "sampler_open: %s (needs root and BPF)\n", strerror(-err));
		return unit_report("test_sampler");
	}
	test_samples_arrive();
	test_drains_lose_nothing();
	test_filter();
	test_heatmap("TAI");
	test_exec_notify();
	test_controls();
	test_bad_input();
	sampler_close(s);
	test_overload();
	test_hash_collisions();
	test_drain_without_batch();
	test_unwind_reuse();
	test_no_leaks();
	test_heatmap_without_tai();
	test_reconfigure();
	return unit_report("test_sampler");
}
