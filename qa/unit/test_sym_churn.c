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
#include "symbolize.h"
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

int
main(void)
{
	build("before_exec", "function_before_exec");
	build("after_exec", "function_after_exec");
	test_exec(true);
	test_exec(false);
	test_bounded();
	test_short_lived();
	return unit_report("test_sym_churn");
}
