/*
 * test_sym_debuginfod.c - names for stripped binaries from debuginfod
 * servers, through the symbolizer's public calls:
 *   - elfutils' own `debuginfod -F DIR` on 127.0.0.1 serves the unstripped
 *     build: the stripped program's frames are named once the file has
 *     arrived, and only after a collect (between drains); the on-disk
 *     cache stays under its bound;
 *   - off (no URLs): the server's own /metrics sees no request;
 *   - a server that accepts and never answers: lookups and collects go on
 *     while it hangs, the first-byte limit gives it up (counted), the
 *     build-id is not asked again at once, and neither a lookup, a collect
 *     nor shutdown waits for the server;
 *   - servers that send another binary, garbage, or too much: nothing is
 *     named wrongly and every refusal is counted; debuginfod is told the
 *     size cap and refuses a larger file itself;
 *   - configuration errors leave the state unchanged.
 * Nothing is timed against the host's speed: the checks are what happened
 * (names, counters, the requests a server saw), and how long calls take
 * while a server hangs is bench/latency's (part 2).
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include "unit.h"
#include "lib/clock.h"
#include "symbolizer/symbolize.h"
#include "sym_testlib.h"
#include "http_testlib.h"

static const char prog_src[] =
	"#include <stdio.h>\n#include <stdint.h>\n#include <unistd.h>\n"
	"__attribute__((noinline)) int debug_only_function(int x)\n"
	"{ volatile int s = 0; for (int i = 0; i < x; i++) s += i; return s * VARIANT; }\n"
	"int main(void) {\n"
	"  char c;\n"
	"  printf(\"%p debug_only_function\\n\", (void *)(uintptr_t)debug_only_function);\n"
	"  fflush(stdout);\n"
	"  return (int)read(0, &c, 1) + debug_only_function(2);\n"
	"}\n";

/* scratch/NAME with symbols, scratch/NAME_s stripped (nothing but .dynsym). */
static void
build_pair(const char *name, int variant)
{
	char src[64];

	snprintf(src, sizeof(src), "%s.c", name);
	write_file(spath(src), prog_src);
	must_run("cd %s && cc -O1 -g -Wl,--build-id -DVARIANT=%d -o %s %s && "
		 "strip --strip-all -o %s_s %s", scratch_dir(), variant, name, src, name, name);
}

static void
build_id_of(const char *path, char *id, size_t len)
{
	char cmd[600];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n %s | awk '/Build ID/ { print $3 }'", path);
	id[0] = '\0';
	if ((p = popen(cmd, "r")) != NULL) {
		if (fgets(id, (int)len, p) == NULL)
			id[0] = '\0';
		pclose(p);
	}
	id[strcspn(id, "\n")] = '\0';
}

static long
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* ---- elfutils' debuginfod ---- */
struct server {
	pid_t	pid;
	int	port;
	char	url[64];
};

static double
served(int port)
{
	double v = http_metric(port, "http_requests_total{type=\"debuginfo\"}");

	return v < 0 ? 0 : v;
}

static struct server
start_debuginfod(const char *dir, int nfiles)
{
	struct server sv = { .port = free_port() };
	char port[16];

	snprintf(port, sizeof(port), "%d", sv.port);
	snprintf(sv.url, sizeof(sv.url), "http://127.0.0.1:%d", sv.port);
	if ((sv.pid = fork()) == 0) {
		int log = open(spath("debuginfod.log"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(log, 1);
		dup2(log, 2);
		/* a server with DEBUGINFOD_URLS set would forward misses upstream */
		unsetenv("DEBUGINFOD_URLS");
		execlp("debuginfod", "debuginfod", "-F", dir, "-p", port,
		       "-d", spath("debuginfod.sqlite"), (char *)NULL);
		_exit(127);
	}
	/* ready once its first scan has indexed every file */
	for (int i = 0; i < 400; i++) {
		if (http_metric(sv.port, "scanned_files_total{source=\"file\"}") >= nfiles)
			return sv;
		usleep(50000);
	}
	fprintf(stderr, "debuginfod did not index %s in 20 s (see %s)\n", dir, spath("debuginfod.log"));
	exit(2);
}

static void
stop_debuginfod(struct server *sv)
{
	int status;

	kill(sv->pid, SIGTERM);
	waitpid(sv->pid, &status, 0);
}

/* ---- the symbolizer ---- */
static struct symbolizer *
new_symbolizer_with(const struct symbolizer_debuginfod_config *cfg)
{
	struct symbolizer *s = symbolizer_new(16 << 20);

	CHECK(s != NULL);
	CHECK_INT(symbolizer_debuginfod_setup(s, cfg), 0);
	return s;
}

static struct symbolizer *
new_symbolizer(const char *cache, unsigned first_byte_ms, uint64_t file_max, uint64_t cache_max)
{
	struct symbolizer_debuginfod_config cfg = {
		.cache_dir = cache, .first_byte_ms = first_byte_ms, .total_ms = 5000,
		.file_max_bytes = file_max, .cache_max_bytes = cache_max, .workers = 2,
	};

	return new_symbolizer_with(&cfg);
}

static struct symbolizer_stats
stats(struct symbolizer *s)
{
	struct symbolizer_stats st;

	symbolizer_get_stats(s, &st);
	return st;
}

/* Wait (at most `seconds`) until a debuginfod counter of s passes `above`. */
#define WAIT_STAT(s, field, above, seconds) do { \
	for (int w_ = 0; w_ < (seconds) * 50 && stats(s).debuginfod.field <= (above); w_++) \
		usleep(20000); \
} while (0)

/* A running stripped program and the address of its function. */
struct prog {
	struct child	c;
	uint64_t	ip;
	char		fallback[600];	/* "[/path]": what a stripped frame is called */
};

static struct prog
run(const char *name)
{
	struct prog p;
	char fn[256];
	char *argv[] = { (char *)spath(name), NULL };

	p.c = child_start(argv);
	p.ip = child_addr(&p.c, fn, sizeof(fn)) + 2;
	CHECK(p.ip > 2);
	snprintf(p.fallback, sizeof(p.fallback), "[%s]", spath(name));
	return p;
}

/* ---- the tests ---- */

static struct server server;	/* serves a, b, c, d unstripped */

static void
test_fetch_names_stripped(void)
{
	char got[512], id_a[160], id_b[160], dir[700];
	long big = file_size(spath("a")) > file_size(spath("b")) ? file_size(spath("a")) :
		   file_size(spath("b"));
	/* room for one debug file, not two: fetching b must evict a */
	uint64_t cap = (uint64_t)big * 3 / 2;
	struct symbolizer *s = new_symbolizer(spath("cache1"), 2000, 0, cap);
	struct symbolizer_stats st;
	struct stat dst;
	double before = served(server.port);

	CHECK_INT(symbolizer_set_debuginfod(s, server.url), 0);
	CHECK(stat(spath("cache1"), &dst) == 0 && (dst.st_mode & 07777) == 0700);

	struct prog a = run("a_s");
	symbolize_user(s, a.c.pid, a.ip, got, sizeof(got));
	CHECK_STR(got, a.fallback);
	/* the file arrives in the background; names change only at a collect */
	WAIT_STAT(s, hits, 0, 10);
	CHECK_INT(stats(s).debuginfod.hits, 1);
	symbolize_user(s, a.c.pid, a.ip, got, sizeof(got));
	CHECK_STR(got, a.fallback);
	symbolizer_collect(s);
	symbolize_user(s, a.c.pid, a.ip, got, sizeof(got));
	CHECK_STR(got, "debug_only_function");

	st = stats(s);
	CHECK_INT(st.debuginfod.requests, 1);
	CHECK_INT(st.debuginfod.failures, 0);
	CHECK_INT(st.debuginfod.named_files, 1);
	CHECK_INT(st.debuginfod.bytes, file_size(spath("a")));
	CHECK(st.debuginfod.slowest_us > 0);
	CHECK_INT(served(server.port), before + 1);

	/* a second file: the cache keeps the newest within its bound */
	struct prog b = run("b_s");
	symbolize_user(s, b.c.pid, b.ip, got, sizeof(got));
	WAIT_STAT(s, hits, 1, 10);
	symbolizer_collect(s);
	symbolize_user(s, b.c.pid, b.ip, got, sizeof(got));
	CHECK_STR(got, "debug_only_function");
	st = stats(s);
	CHECK(st.debuginfod.cache_bytes > 0 && st.debuginfod.cache_bytes <= cap);
	build_id_of(spath("a"), id_a, sizeof(id_a));
	build_id_of(spath("b"), id_b, sizeof(id_b));
	snprintf(dir, sizeof(dir), "%s/%s", spath("cache1"), id_a);
	CHECK(!exists(dir));
	snprintf(dir, sizeof(dir), "%s/%s/debuginfo", spath("cache1"), id_b);
	CHECK(exists(dir));
	/* a's symbols are in memory: its frames keep their names */
	symbolize_user(s, a.c.pid, a.ip, got, sizeof(got));
	CHECK_STR(got, "debug_only_function");

	child_stop(&a.c);
	child_stop(&b.c);
	symbolizer_free(s);
}

static void
test_off_asks_nothing(void)
{
	char got[512];
	struct symbolizer *s = new_symbolizer(spath("cache2"), 2000, 0, 0);
	double before = served(server.port);
	struct prog c = run("c_s");

	/* set up but no URLs, then an explicit "" */
	for (int i = 0; i < 25; i++) {
		symbolize_user(s, c.c.pid, c.ip, got, sizeof(got));
		symbolizer_collect(s);
		usleep(20000);
		if (i == 10)
			CHECK_INT(symbolizer_set_debuginfod(s, ""), 0);
	}
	CHECK_STR(got, c.fallback);
	CHECK_INT(stats(s).debuginfod.requests, 0);
	CHECK_INT(served(server.port), before);

	/* the server had it all along: switched on, the name comes */
	CHECK_INT(symbolizer_set_debuginfod(s, server.url), 0);
	symbolize_user(s, c.c.pid, c.ip, got, sizeof(got));
	WAIT_STAT(s, hits, 0, 10);
	symbolizer_collect(s);
	symbolize_user(s, c.c.pid, c.ip, got, sizeof(got));
	CHECK_STR(got, "debug_only_function");
	CHECK_INT(served(server.port), before + 1);
	child_stop(&c.c);
	symbolizer_free(s);
}

/* The cap goes to the server, which refuses a larger file before sending it. */
static void
test_cap_told_to_server(void)
{
	const char *refused = "http_responses_duration_milliseconds_count{code=\"406\",type=\"debuginfo\"}";
	long size = file_size(spath("d"));
	struct symbolizer *s = new_symbolizer(spath("cache6"), 2000, (uint64_t)size / 2, 0);
	double before = http_metric(server.port, refused);
	struct prog d = run("d_s");
	char got[512];

	CHECK_INT(symbolizer_set_debuginfod(s, server.url), 0);
	symbolize_user(s, d.c.pid, d.ip, got, sizeof(got));
	WAIT_STAT(s, failures, 0, 10);
	symbolizer_collect(s);
	symbolize_user(s, d.c.pid, d.ip, got, sizeof(got));
	CHECK_STR(got, d.fallback);
	CHECK_INT(stats(s).debuginfod.rejected, 1);
	CHECK_INT(stats(s).debuginfod.bytes, 0);
	CHECK_INT(http_metric(server.port, refused), (before < 0 ? 0 : before) + 1);
	child_stop(&d.c);
	symbolizer_free(s);
}

/* Lookups and collects while the request of h hangs, until the
 * symbolizer has counted `failures` of them or `rounds` have passed; every
 * frame of h keeps its fallback name meanwhile.  Returns the rounds run. */
static int
serve_while_hanging(struct symbolizer *s, const struct prog *h, uint64_t failures, int rounds)
{
	char got[512];
	int i;

	for (i = 0; i < rounds && stats(s).debuginfod.failures <= failures; i++) {
		symbolize_user(s, h->c.pid, h->ip, got, sizeof(got));
		CHECK_STR(got, h->fallback);
		symbolizer_collect(s);
		usleep(10000);
	}
	return i;
}

static void
wait_requests(struct http_stub *stub, int n)
{
	for (int i = 0; i < 1500 && stub->requests < n; i++)
		usleep(20000);
	CHECK_INT(stub->requests, n);
}

static void
test_hanging_server(void)
{
	struct http_stub stub = { 0 };
	char url[64], got[512];
	struct symbolizer *s;
	struct symbolizer_stats st;
	uint64_t t0, took;
	/* a first-byte limit of 1 s; the total (10 min) and retry_s (600 s by
	 * default) lie beyond the test, so neither ends nor repeats a request */
	struct symbolizer_debuginfod_config gives_up = {
		.cache_dir = spath("cache3"), .first_byte_ms = 1000, .total_ms = 600000,
		.workers = 2,
	};
	/* no limit the test reaches: only shutdown can end its requests, and
	 * one worker, so a second request waits behind a hanging one */
	struct symbolizer_debuginfod_config hangs = {
		.cache_dir = spath("cache7"), .first_byte_ms = 600000, .total_ms = 600000,
		.workers = 1,
	};

	stub_start(&stub, STUB_HANG);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", stub.port);

	/* given up at the first-byte limit, lookups and collects going on */
	s = new_symbolizer_with(&gives_up);
	CHECK_INT(symbolizer_set_debuginfod(s, url), 0);
	struct prog h = run("h_s");
	symbolize_user(s, h.c.pid, h.ip, got, sizeof(got));
	CHECK_STR(got, h.fallback);
	wait_requests(&stub, 1);	/* it was asked, and hangs */
	serve_while_hanging(s, &h, 0, 3000);
	st = stats(s);
	CHECK_INT(st.debuginfod.requests, 1);
	CHECK_INT(st.debuginfod.failures, 1);
	CHECK_INT(st.debuginfod.hits, 0);
	/* not before the limit (a busy host can only make it later; how much
	 * later is the low-speed limit's or the progress call's, not a test's) */
	CHECK(st.debuginfod.slowest_us >= 1000000);
	printf("hanging server: request given up after %.2f s (first-byte limit 1 s)\n",
	       st.debuginfod.slowest_us / 1e6);

	/* not asked again before retry_s */
	for (int i = 0; i < 50; i++) {
		symbolize_user(s, h.c.pid, h.ip, got, sizeof(got));
		symbolizer_collect(s);
		usleep(10000);
	}
	CHECK_STR(got, h.fallback);
	CHECK_INT(stub.requests, 1);
	CHECK_INT(stats(s).debuginfod.requests, 1);
	symbolizer_free(s);

	/* a request no limit ends: every lookup and collect returns while it
	 * is out (one that waited for it would not return before shutdown) */
	s = new_symbolizer_with(&hangs);
	CHECK_INT(symbolizer_set_debuginfod(s, url), 0);
	struct prog h2 = run("h2_s");
	symbolize_user(s, h2.c.pid, h2.ip, got, sizeof(got));
	wait_requests(&stub, 2);
	CHECK_INT(serve_while_hanging(s, &h2, 0, 100), 100);
	st = stats(s);
	CHECK_INT(st.debuginfod.requests, 0);	/* counted when one ends: none has */
	CHECK_INT(st.debuginfod.failures, 0);
	CHECK_INT(stub.requests, 2);
	/* shutdown cancels it: a free that waited for the server would last
	 * until the request's own 10 min limit */
	t0 = clock_mono_ns();
	symbolizer_free(s);
	took = clock_mono_ns() - t0;
	printf("hanging server: symbolizer_free took %.3f s (the request's limit: 600 s)\n",
	       took / 1e9);
	CHECK(took < 600 * 1000000000ull);
	child_stop(&h.c);
	child_stop(&h2.c);
	stub_stop(&stub);
}

/* The stub answers every build-id with whatever the case sets up. */
static void
check_refused(struct symbolizer *s, struct http_stub *stub, const char *what, const char *prog)
{
	struct symbolizer_stats before = stats(s), after;
	char got[512], id[160], dir[700];
	int asked = stub->requests;
	struct prog p = run(prog);

	symbolize_user(s, p.c.pid, p.ip, got, sizeof(got));
	WAIT_STAT(s, failures, before.debuginfod.failures, 10);
	symbolizer_collect(s);
	symbolizer_collect(s);
	symbolize_user(s, p.c.pid, p.ip, got, sizeof(got));
	after = stats(s);
	printf("%s: named \"%s\", rejected %llu -> %llu\n", what, got,
	       (unsigned long long)before.debuginfod.rejected,
	       (unsigned long long)after.debuginfod.rejected);
	CHECK(stub->requests > asked);
	CHECK_STR(got, p.fallback);
	CHECK_INT(after.debuginfod.rejected, before.debuginfod.rejected + 1);
	CHECK_INT(after.debuginfod.failures, before.debuginfod.failures + 1);
	CHECK_INT(after.debuginfod.hits, 0);
	CHECK_INT(after.debuginfod.named_files, 0);
	/* nothing refused stays in the cache */
	build_id_of(spath(prog), id, sizeof(id));
	snprintf(dir, sizeof(dir), "%s/%s", spath("cache4"), id);
	CHECK(!exists(dir));
	child_stop(&p.c);
}

static void
test_wrong_answers(void)
{
	struct http_stub stub = { 0 };
	char url[64];
	size_t len = 0;
	struct symbolizer *s;
	char *other, *garbage, *huge;

	stub_start(&stub, STUB_BODY);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", stub.port);
	s = new_symbolizer(spath("cache4"), 2000, 1 << 20, 0);
	CHECK_INT(symbolizer_set_debuginfod(s, url), 0);

	/* another build of the same source: same function at the same
	 * address, so a wrong file would give a plausible name */
	other = (char *)slurp(spath("w_other"), &len);
	CHECK(other != NULL);
	stub.body = other;
	stub.body_len = len;
	check_refused(s, &stub, "another binary", "w1_s");

	garbage = malloc(65536);
	for (size_t i = 0; i < 65536; i++)
		garbage[i] = (char)(i * 2654435761u >> 13);
	stub.body = garbage;
	stub.body_len = 65536;
	check_refused(s, &stub, "garbage", "w2_s");

	/* over the 1 MiB cap with a Content-Length */
	huge = calloc(1, 4 << 20);
	memcpy(huge, other, len);
	stub.body = huge;
	stub.body_len = 4 << 20;
	check_refused(s, &stub, "4 MiB announced", "w3_s");
	free(other);
	/* with no length (chunked): the right debug file, padded to 64 MiB,
	 * is still cut off near the cap, not downloaded whole */
	other = (char *)slurp(spath("w4"), &len);
	CHECK(other != NULL);
	stub.body = other;
	stub.body_len = len;
	stub.chunked_bytes = 64 << 20;
	stub.mode = STUB_CHUNKED;
	size_t sent = stub.sent;
	check_refused(s, &stub, "64 MiB unannounced", "w4_s");
	printf("64 MiB unannounced: the stub sent %.1f MiB before the client hung up\n",
	       (stub.sent - sent) / 1048576.0);
	CHECK(stub.sent - sent < (16u << 20));

	symbolizer_free(s);
	stub_stop(&stub);
	free(other);
	free(garbage);
	free(huge);
}

static void
test_config_errors(void)
{
	struct symbolizer *s = symbolizer_new(1 << 20), *s2 = symbolizer_new(1 << 20);
	struct symbolizer_debuginfod_config cfg = { .cache_dir = "relative/dir" };
	char longurl[5000];

	CHECK_INT(symbolizer_set_debuginfod(s, "http://127.0.0.1:1"), -EINVAL);	/* not set up */
	CHECK_INT(symbolizer_debuginfod_setup(s, &cfg), -EINVAL);
	write_file(spath("plainfile"), "x");
	cfg.cache_dir = spath("plainfile");
	CHECK_INT(symbolizer_debuginfod_setup(s, &cfg), -ENOTDIR);
	cfg.cache_dir = spath("cache5");
	cfg.workers = 3;
	CHECK_INT(symbolizer_debuginfod_setup(s, &cfg), -EINVAL);
	cfg.workers = 0;
	/* an existing directory of ours is made private */
	must_run("mkdir -p %s && chmod 755 %s", spath("cache5"), spath("cache5"));
	CHECK_INT(symbolizer_debuginfod_setup(s, &cfg), 0);
	struct stat st;
	CHECK(stat(spath("cache5"), &st) == 0 && (st.st_mode & 07777) == 0700);
	CHECK_INT(symbolizer_debuginfod_setup(s, &cfg), -EBUSY);
	/* libdebuginfod's settings are process-wide: one user at a time */
	CHECK_INT(symbolizer_debuginfod_setup(s2, &cfg), -EBUSY);

	CHECK_INT(symbolizer_set_debuginfod(s, "http://127.0.0.1:9"), 0);
	CHECK_INT(symbolizer_set_debuginfod(s, "http://a\nhttp://b"), -EINVAL);
	memset(longurl, 'a', sizeof(longurl) - 1);
	longurl[4097] = '\0';
	CHECK_INT(symbolizer_set_debuginfod(s, longurl), -EINVAL);
	CHECK_STR(getenv("DEBUGINFOD_URLS"), "http://127.0.0.1:9");	/* unchanged */
	longurl[4096] = '\0';		/* as long as the control takes */
	CHECK_INT(symbolizer_set_debuginfod(s, longurl), 0);
	CHECK_INT(strlen(getenv("DEBUGINFOD_URLS")), 4096);
	symbolizer_free(s);
	CHECK_INT(symbolizer_debuginfod_setup(s2, &cfg), 0);
	symbolizer_free(s2);
}

int
main(void)
{
	if (!have_program("debuginfod"))
		unit_skip("test_sym_debuginfod", "no debuginfod (Debian package debuginfod)");
	signal(SIGPIPE, SIG_IGN);	/* the stub writes to clients that gave up */
	unsetenv("DEBUGINFOD_URLS");
	build_pair("a", 11);
	build_pair("b", 12);
	build_pair("c", 13);
	build_pair("d", 21);
	build_pair("h", 14);
	build_pair("h2", 15);
	build_pair("w1", 16);
	build_pair("w2", 17);
	build_pair("w3", 18);
	build_pair("w4", 19);
	build_pair("w_other", 20);
	must_run("mkdir -p %s && cp %s %s %s %s %s/", spath("srv"), spath("a"), spath("b"),
		 spath("c"), spath("d"), spath("srv"));
	server = start_debuginfod(spath("srv"), 4);

	test_fetch_names_stripped();
	test_off_asks_nothing();
	test_cap_told_to_server();
	test_hanging_server();
	test_wrong_answers();
	test_config_errors();
	stop_debuginfod(&server);
	return unit_report("test_sym_debuginfod");
}
