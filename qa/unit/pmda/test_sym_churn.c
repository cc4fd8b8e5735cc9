/*
 * test_sym_churn.c - processes that come and go: an exec inside one PID
 * (noticed through symbolizer_note_exec, and through collect alone), many
 * distinct binaries through a small cache (bounded bytes, evictions,
 * names still right after eviction), and hundreds of short-lived processes
 * symbolized after they exited, as a drain would.
 */
#include <stdint.h>
#include <sys/wait.h>
#include "unit.h"
#include "symbolizer/symbolize.h"
#include "sym_testlib.h"

/* argv[1] "wait": print, then on a line of input exec argv[2] (if any);
 * argv[1] = N: print, spin N ms, exit. */
static const char prog_src[] =
	"#include <stdio.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <time.h>\n#include <unistd.h>\n"
	"__attribute__((noinline)) long FN(long x) { volatile long s = 0; for (long i = 0; i < x; i++) s += i; return s; }\n"
	"static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }\n"
	"int main(int argc, char **argv) {\n"
	"  char c;\n"
	"#define STR(x) #x\n#define NAME(x) STR(x)\n"
	"  printf(\"%p %s\\n\", (void *)(uintptr_t)FN, NAME(FN));\n"
	"  fflush(stdout);\n"
	"  if (argc > 1 && argv[1][0] != 'w') { double end = now() + atoi(argv[1]) / 1000.0; while (now() < end) FN(1000); return 0; }\n"
	"  if (read(0, &c, 1) == 1 && argc > 2) execv(argv[2], argv + 2);\n"
	"  return (int)FN(1);\n"
	"}\n";

static void
build(const char *exe, const char *fn)
{
	write_file(spath("prog.c"), prog_src);
	must_run("cc -O1 -DFN=%s -o %s %s", fn, spath(exe), spath("prog.c"));
}

static void
test_exec(bool notify)
{
	struct symbolizer *s = symbolizer_new(16 << 20);
	char a_path[512], b_path[512], fn[256], got[256];
	unsigned long a, b;

	snprintf(a_path, sizeof(a_path), "%s", spath("before_exec"));
	snprintf(b_path, sizeof(b_path), "%s", spath("after_exec"));
	char *argv[] = { a_path, "wait", b_path, "wait", NULL };
	struct child c = child_start(argv);
	a = child_addr(&c, fn, sizeof(fn));
	symbolize_user(s, c.pid, a + 1, got, sizeof(got));
	CHECK_STR(got, "function_before_exec");
	CHECK(write(c.in, "x", 1) == 1);	/* one byte: the new image waits for more */
	b = child_addr(&c, fn, sizeof(fn));
	CHECK_STR(fn, "function_after_exec");
	if (notify)
		symbolizer_note_exec(s, c.pid);		/* the exec hook */
	else
		symbolizer_collect(s);			/* the next drain finds out */
	symbolize_user(s, c.pid, b + 1, got, sizeof(got));
	CHECK_STR(got, "function_after_exec");
	child_stop(&c);
	symbolizer_free(s);
}

/* 40 binaries (distinct inodes) through a cache smaller than their sum. */
static void
test_bounded(void)
{
	const size_t limit = 8 * 1024;	/* a few tables' worth */
	struct symbolizer *s = symbolizer_new(limit);
	struct symbolizer_stats st;
	char fn[256], got[256], path[512], name[64];
	int right = 0, over = 0;

	build("churn_bin", "churn_function");
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "copy_%02d", i);
		snprintf(path, sizeof(path), "%s", spath(name));
		must_run("cp %s %s", spath("churn_bin"), path);
		char *argv[] = { path, "wait", NULL };
		struct child c = child_start(argv);
		unsigned long a = child_addr(&c, fn, sizeof(fn));
		symbolize_user(s, c.pid, a + 1, got, sizeof(got));
		right += strcmp(got, "churn_function") == 0;
		child_stop(&c);
		symbolizer_collect(s);
		symbolizer_get_stats(s, &st);
		over += st.cache_bytes > limit;
	}
	CHECK_INT(right, 40);
	CHECK_INT(over, 0);
	symbolizer_get_stats(s, &st);
	CHECK(st.cache_evictions > 0);
	printf("bounded: %d/40 named, cache %llu bytes (limit %zu), %llu evictions, "
	       "%llu hits, %llu misses\n", right, (unsigned long long)st.cache_bytes, limit,
	       (unsigned long long)st.cache_evictions, (unsigned long long)st.cache_hits,
	       (unsigned long long)st.cache_misses);
	symbolizer_free(s);
}

/* The table of a binary whose processes all exited goes once unused for
 * the idle time, and not before; one still mapped stays. */
static void
test_idle_expiry(void)
{
	struct symbolizer *s = symbolizer_new(64 << 20);
	struct symbolizer_stats st;
	char fn[256], got[256], gone[512], kept[512];
	uint64_t evictions;

	build("churn_bin", "churn_function");
	snprintf(gone, sizeof(gone), "%s", spath("idle_gone"));
	snprintf(kept, sizeof(kept), "%s", spath("idle_kept"));
	must_run("cp %s %s && cp %s %s", spath("churn_bin"), gone, spath("churn_bin"), kept);
	symbolizer_set_cache_idle(s, 200000000ull);		/* 200 ms */
	char *argv_gone[] = { gone, "wait", NULL }, *argv_kept[] = { kept, "wait", NULL };
	struct child g = child_start(argv_gone), k = child_start(argv_kept);
	unsigned long kept_addr = child_addr(&k, fn, sizeof(fn));
	symbolize_user(s, g.pid, child_addr(&g, fn, sizeof(fn)) + 1, got, sizeof(got));
	CHECK_STR(got, "churn_function");
	symbolize_user(s, k.pid, kept_addr + 1, got, sizeof(got));
	CHECK_STR(got, "churn_function");
	child_stop(&g);
	symbolizer_collect(s);		/* gone's process: dead */
	symbolizer_collect(s);		/* ... dropped: its table is unused now */
	symbolizer_get_stats(s, &st);
	evictions = st.cache_evictions;
	uint64_t before = st.cache_bytes;
	symbolizer_collect(s);		/* well within the idle time: kept */
	symbolizer_get_stats(s, &st);
	CHECK_INT(st.cache_evictions, evictions);
	usleep(300000);
	symbolizer_collect(s);		/* past it: gone's table goes, kept's stays */
	symbolizer_get_stats(s, &st);
	printf("idle_expiry: cache %llu -> %llu bytes, %llu table(s) expired\n",
	       (unsigned long long)before, (unsigned long long)st.cache_bytes,
	       (unsigned long long)(st.cache_evictions - evictions));
	CHECK_INT(st.cache_evictions - evictions, 1);
	CHECK(st.cache_bytes < before);
	symbolize_user(s, k.pid, kept_addr + 1, got, sizeof(got));
	CHECK_STR(got, "churn_function");
	symbolizer_get_stats(s, &st);
	CHECK_INT(st.cache_evictions - evictions, 1);
	child_stop(&k);
	symbolizer_free(s);
}

/* Short-lived processes (~50 ms), 10 at a time: maps captured at start (the
 * exec hook), names asked for after they exited (the drain). */
static void
test_short_lived(void)
{
	struct symbolizer *s = symbolizer_new(8 << 20);
	char fn[256], got[256], exe[512];
	int right = 0, total = 0;

	build("short_lived", "short_lived_function");
	snprintf(exe, sizeof(exe), "%s", spath("short_lived"));
	for (int round = 0; round < 20; round++) {
		struct child c[10];
		pid_t pid[10];
		unsigned long a[10];
		for (int i = 0; i < 10; i++) {
			char *argv[] = { exe, "50", NULL };
			c[i] = child_start(argv);
			pid[i] = c[i].pid;
			a[i] = child_addr(&c[i], fn, sizeof(fn));
			symbolizer_note_exec(s, pid[i]);
		}
		for (int i = 0; i < 10; i++) {
			waitpid(pid[i], NULL, 0);	/* exited on its own, reaped */
			fclose(c[i].out);
			close(c[i].in);
		}
		for (int i = 0; i < 10; i++) {
			symbolize_user(s, pid[i], a[i] + 1, got, sizeof(got));
			right += strcmp(got, "short_lived_function") == 0;
			if (strcmp(got, "short_lived_function") != 0)
				fprintf(stderr, "short-lived pid %d: \"%s\"\n", (int)pid[i], got);
			total++;
		}
		symbolizer_collect(s);
	}
	printf("short-lived: %d of %d frames named after exit (%.1f%%)\n",
	       right, total, 100.0 * right / total);
	CHECK(right * 100 >= total * 95);
	symbolizer_free(s);
}

/* Maps that grow after exec (as when ld.so maps the libraries): re-read on
 * the young schedule, so a library mapped after note_exec is named even
 * after the process exited. */
static void
test_young(void)
{
	struct symbolizer *s = symbolizer_new(8 << 20);
	char exe[512], fn[256], got[256];
	unsigned long a;

	write_file(spath("young_lib.c"), "int young_lib_function(int x) { return x * 5 + 2; }\n");
	write_file(spath("young.c"),
		   "#include <dlfcn.h>\n#include <stdio.h>\n#include <unistd.h>\n"
		   "int main(int argc, char **argv) { char c;\n"
		   "  printf(\"0x1 ready\\n\"); fflush(stdout);\n"
		   "  if (read(0, &c, 1) != 1) return 1;\n"
		   "  void *h = dlopen(argv[1], RTLD_NOW); if (!h) return 2;\n"
		   "  printf(\"%p young_lib_function\\n\", dlsym(h, \"young_lib_function\")); fflush(stdout);\n"
		   "  return (int)read(0, &c, 1); }\n");
	must_run("cc -O1 -shared -fPIC -o %s %s", spath("libyoung.so"), spath("young_lib.c"));
	snprintf(exe, sizeof(exe), "%s", spath("young"));
	must_run("cc -O1 -o %s %s -ldl", exe, spath("young.c"));
	char lib[512];
	snprintf(lib, sizeof(lib), "%s", spath("libyoung.so"));
	char *argv[] = { exe, lib, NULL };
	struct child c = child_start(argv);
	child_addr(&c, fn, sizeof(fn));
	symbolizer_note_exec(s, c.pid);		/* maps without the library */
	CHECK(symbolizer_timeout_ms(s) >= 0);
	CHECK(write(c.in, "x", 1) == 1);
	a = child_addr(&c, fn, sizeof(fn));	/* mapped now */
	for (int i = 0; i < 50 && symbolizer_timeout_ms(s) >= 0; i++) {
		usleep(1000 * (symbolizer_timeout_ms(s) + 1));
		symbolizer_tick(s);
	}
	CHECK_INT(symbolizer_timeout_ms(s), -1);	/* schedule done: maps grew */
	child_stop(&c);				/* gone before anyone asks */
	symbolize_user(s, c.pid, a + 1, got, sizeof(got));
	CHECK_STR(got, "[l] young_lib_function");
	symbolizer_free(s);
}

/*
 * A file with the (device, inode) of one whose table is cached, but other
 * contents: what a deleted binary's inode reused by a new file looks like
 * (qa/103 after qa/102).  Rewriting the file in place gives the same
 * inode on purpose; the new contents must be named, not the cached table.
 */
static void
test_inode_reuse(void)
{
	struct symbolizer *s = symbolizer_new(16 << 20);
	char path[512], fn[256], got[256], *argv[] = { path, "wait", NULL };
	unsigned char *bytes;
	struct stat st0, st1;
	struct child c;
	size_t len;
	int fd;

	snprintf(path, sizeof(path), "%s", spath("reused"));
	build("reused", "alpha_function");
	build("reused_next", "bravo_function");	/* same code, same addresses */
	c = child_start(argv);
	symbolize_user(s, c.pid, child_addr(&c, fn, sizeof(fn)) + 1, got, sizeof(got));
	CHECK_STR(got, "alpha_function");
	child_stop(&c);
	symbolizer_collect(s);

	CHECK(stat(path, &st0) == 0);
	bytes = slurp(spath("reused_next"), &len);
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, bytes, len) == (ssize_t)len);
	close(fd);
	free(bytes);
	CHECK(stat(path, &st1) == 0 && st1.st_ino == st0.st_ino && st1.st_dev == st0.st_dev);

	c = child_start(argv);
	symbolize_user(s, c.pid, child_addr(&c, fn, sizeof(fn)) + 1, got, sizeof(got));
	CHECK_STR(fn, "bravo_function");
	CHECK_STR(got, "bravo_function");
	child_stop(&c);
	symbolizer_free(s);
}

int
main(void)
{
	build("before_exec", "function_before_exec");
	build("after_exec", "function_after_exec");
	test_exec(true);
	test_exec(false);
	test_bounded();
	test_idle_expiry();
	test_short_lived();
	test_young();
	test_inode_reuse();
	return unit_report("test_sym_churn");
}
