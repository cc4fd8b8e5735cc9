/*
 * test_sym_jit.c - code outside ordinary files: perf maps of JIT runtimes
 * (one the test writes, with garbage lines and growth, and Node.js's own,
 * also from inside a PID + mount namespace with a private /tmp), memfd and
 * anonymous executable memory without a map, and binaries deleted or
 * replaced while they run (read through /proc/PID/map_files).
 */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include "unit.h"
#include "symbolizer/symbolize.h"
#include "sym_testlib.h"

static void
append_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "a");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Our own anonymous executable mapping, named by a perf map we write. */
static void
test_perfmap_own(void)
{
	struct symbolizer *s = symbolizer_new(8 << 20);
	struct symbolizer_stats st;
	char map[64], line[512], got[256];
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *code = mmap(NULL, 4 * pg, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a = (uintptr_t)code;

	CHECK(code != MAP_FAILED);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	snprintf(line, sizeof(line),
		 "%lx 40 LazyCompile:*jitFirst /app/a.js:1\n"
		 "this line is garbage\n"
		 "%lx zz bad_size\n"
		 "%lx 40 jit;with;semicolons\n"
		 "\n"
		 "%lx 0 zero_size\n",
		 (unsigned long)a, (unsigned long)(a + 0x40), (unsigned long)(a + 0x80),
		 (unsigned long)(a + 0x100));
	unlink(map);
	append_file(map, line);
	symbolize_user(s, getpid(), a + 0x10, got, sizeof(got));
	CHECK_STR(got, "LazyCompile:*jitFirst /app/a.js:1");
	symbolize_user(s, getpid(), a + 0x90, got, sizeof(got));
	CHECK_STR(got, "jit,with,semicolons");
	/* in the mapping, named by no line: a stable name, not an address */
	symbolize_user(s, getpid(), a + 0x200, got, sizeof(got));
	CHECK_STR(got, "[unknown] [anon]");
	symbolizer_get_stats(s, &st);
	CHECK_INT(st.perfmap_bad_lines, 4);

	/* the runtime appends (a partial line waits for its end); we re-read
	 * once per generation, and a later line for an address wins */
	snprintf(line, sizeof(line), "%lx 100 jitSecond\n%lx 40 jitFirstRecompiled\n%lx 10 partial",
		 (unsigned long)(a + 0x200), (unsigned long)a, (unsigned long)(a + 0x400));
	append_file(map, line);
	symbolize_user(s, getpid(), a + 0x210, got, sizeof(got));
	CHECK_STR(got, "[unknown] [anon]");	/* same generation: not re-read yet */
	symbolizer_collect(s);
	symbolize_user(s, getpid(), a + 0x210, got, sizeof(got));
	CHECK_STR(got, "jitSecond");
	symbolize_user(s, getpid(), a + 0x8, got, sizeof(got));
	CHECK_STR(got, "jitFirstRecompiled");
	symbolize_user(s, getpid(), a + 0x404, got, sizeof(got));
	CHECK_STR(got, "[unknown] [anon]");
	append_file(map, "_end\n");
	symbolizer_collect(s);
	symbolize_user(s, getpid(), a + 0x404, got, sizeof(got));
	CHECK_STR(got, "partial_end");
	symbolizer_get_stats(s, &st);
	CHECK_INT(st.perfmap_bad_lines, 4);
	unlink(map);
	munmap(code, 4 * pg);
	symbolizer_free(s);
}

static void
test_memfd(void)
{
	struct symbolizer *s = symbolizer_new(8 << 20);
	char got[256];
	long pg = sysconf(_SC_PAGESIZE);
	int fd = memfd_create("jit;code", 0);
	void *code;

	CHECK(fd >= 0 && ftruncate(fd, pg) == 0);
	code = mmap(NULL, pg, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	CHECK(code != MAP_FAILED);
	symbolize_user(s, getpid(), (uintptr_t)code + 16, got, sizeof(got));
	CHECK_STR(got, "[unknown] [memfd:jit,code]");
	symbolize_user(s, getpid(), (uintptr_t)code + 32, got, sizeof(got));
	CHECK_STR(got, "[unknown] [memfd:jit,code]");
	munmap(code, pg);
	close(fd);
	symbolizer_free(s);
}

static const char prog_src[] =
	"#include <stdio.h>\n#include <stdint.h>\n#include <unistd.h>\n"
	"__attribute__((noinline)) int NAME(int x)\n"
	"{ volatile int s = 0; for (int i = 0; i < x; i++) s += i; return s; }\n"
	"int main(void) {\n"
	"  char c;\n"
	"  printf(\"%p \" \"NAME\" \"\\n\", (void *)(uintptr_t)NAME);\n"
	"  fflush(stdout);\n"
	"  return (int)read(0, &c, 1) + NAME(2);\n"
	"}\n";

/* The running binary is deleted, or replaced by another build at its path. */
static void
test_deleted_and_replaced(void)
{
	struct symbolizer *s = symbolizer_new(8 << 20);
	char fn[256], got[256];
	unsigned long a;

	write_file(spath("prog.c"), prog_src);
	must_run("cc -O1 -DNAME=original_function -o %s %s", spath("prog_del"), spath("prog.c"));
	must_run("cc -O1 -DNAME=original_function -o %s %s", spath("prog_rep"), spath("prog.c"));
	must_run("cc -O1 -DNAME=padding_first_function_with_other_layout -o %s %s",
		 spath("prog_new"), spath("prog.c"));

	char *argv1[] = { (char *)spath("prog_del"), NULL };
	struct child c1 = child_start(argv1);
	a = child_addr(&c1, fn, sizeof(fn));
	unlink(spath("prog_del"));
	symbolize_user(s, c1.pid, a + 1, got, sizeof(got));
	CHECK_STR(got, "original_function");
	child_stop(&c1);

	char *argv2[] = { (char *)spath("prog_rep"), NULL };
	struct child c2 = child_start(argv2);
	a = child_addr(&c2, fn, sizeof(fn));
	CHECK(rename(spath("prog_new"), spath("prog_rep")) == 0);
	symbolize_user(s, c2.pid, a + 1, got, sizeof(got));
	CHECK_STR(got, "original_function");
	child_stop(&c2);
	symbolizer_free(s);
}

/* Lines of perf map path naming machine code of fn (V8 marks optimized
 * code '*' and baseline code '^'; '~' lines name bytecode in the heap,
 * which no sample's IP points into): their start addresses, up to max. */
static int
perfmap_addrs(const char *path, const char *fn, unsigned long *out, int max)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int n = 0;

	while (f && n < max && fgets(line, sizeof(line), f))
		if (strstr(line, fn) && (strstr(line, "JS:*") || strstr(line, "JS:^")) &&
		    sscanf(line, "%lx", &out[n]) == 1)
			n++;
	if (f)
		fclose(f);
	return n;
}

static const char node_script[] =
	"function hotJsFunction(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * i; return s; }\n"
	"setInterval(() => { for (let k = 0; k < 5; k++) hotJsFunction(100000); }, 5);\n";

/* Symbolize the addresses node's perf map gives its hot function; wait up to
 * 15 s for the JIT to get there.  map is the path we read it by. */
static void
check_node(pid_t host_pid, const char *map)
{
	struct symbolizer *s = symbolizer_new(32 << 20);
	unsigned long addrs[8];
	char got[512];
	int n = 0;

	for (int i = 0; i < 150 && (n = perfmap_addrs(map, "hotJsFunction", addrs, 8)) == 0; i++)
		usleep(100 * 1000);
	CHECK(n > 0);
	for (int i = 0; i < n; i++) {
		symbolize_user(s, host_pid, addrs[i] + 1, got, sizeof(got));
		CHECK(strstr(got, "JS:") != NULL && strstr(got, "hotJsFunction") != NULL);
		if (strstr(got, "hotJsFunction") == NULL)
			fprintf(stderr, "node frame: got \"%s\"\n", got);
	}
	symbolizer_free(s);
}

static void
test_node(void)
{
	char map[64];

	CHECK(have_program("node"));
	if (!have_program("node"))
		return;
	/* in the scratch directory: --perf-basic-prof leaves isolate-*.log in
	 * the working directory; sh execs node, so the pid stays node's */
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "cd %s && exec node --perf-basic-prof -e '%s'",
		 scratch_dir(), node_script);
	char *argv[] = { "sh", "-c", cmd, NULL };
	struct child c = child_start(argv);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)c.pid);
	check_node(c.pid, map);
	child_stop(&c);
	unlink(map);
}

/* Node in its own PID and mount namespaces, with a private /tmp: its map is
 * /tmp/perf-1.map there, invisible to us but through /proc/PID/root. */
static void
test_node_namespaced(void)
{
	char script[1024], map[128], path[128], buf[64];
	pid_t host = 0;
	FILE *f;

	CHECK(have_program("unshare"));
	if (!have_program("unshare") || !have_program("node"))
		return;
	snprintf(script, sizeof(script),
		 "mount -t tmpfs tmpfs /tmp && cd /tmp && exec node --perf-basic-prof -e '%s'",
		 node_script);
	/* --kill-child: node (pid 1 there) must die with unshare */
	char *argv[] = { "unshare", "--mount", "--pid", "--fork", "--mount-proc", "--kill-child",
			 "sh", "-c", script, NULL };
	struct child c = child_start(argv);
	/* node is the child unshare forked */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)c.pid, (int)c.pid);
	for (int i = 0; i < 100 && host == 0; i++) {
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(buf, sizeof(buf), f))
				host = atoi(buf);
			fclose(f);
		}
		if (host == 0)
			usleep(50 * 1000);
	}
	CHECK(host > 0);
	if (host > 0) {
		snprintf(map, sizeof(map), "/proc/%d/root/tmp/perf-1.map", (int)host);
		check_node(host, map);
	}
	if (host > 0)
		kill(host, SIGKILL);	/* node, pid 1 of the namespace */
	child_stop(&c);
}

int
main(void)
{
	test_perfmap_own();
	test_memfd();
	test_deleted_and_replaced();
	test_node();
	test_node_namespaced();
	return unit_report("test_sym_jit");
}
