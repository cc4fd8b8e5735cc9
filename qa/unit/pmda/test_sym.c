/*
 * test_sym.c - the symbolizer's core: kernel names from kallsyms (module
 * suffixes too), user names from live processes the test builds and runs
 * (PIE and non-PIE executables, a shared library, a stripped binary), the
 * test's own process, and the fallback names.
 */
#include <inttypes.h>
#include <stdint.h>
#include "unit.h"
#include "symbolizer/symbolize.h"
#include "sym_testlib.h"

static const char lib_src[] =
	"#include <stdint.h>\n"
	"__attribute__((noinline)) int lib_hot_function(int x)\n"
	"{ volatile int s = 0; for (int i = 0; i < x; i++) s += i * 3; return s; }\n"
	"void *lib_hot_address(void) { return (void *)(uintptr_t)lib_hot_function; }\n";

static const char exe_src[] =
	"#include <stdio.h>\n#include <stdint.h>\n#include <unistd.h>\n"
	"void *lib_hot_address(void);\n"
	"__attribute__((noinline)) int exe_hot_function(int x)\n"
	"{ volatile int s = 0; for (int i = 0; i < x; i++) s ^= i; return s; }\n"
	"__attribute__((noinline)) static int exe_local_function(int x)\n"
	"{ volatile int s = 1; for (int i = 0; i < x; i++) s *= 3; return s; }\n"
	"int main(void) {\n"
	"  char c;\n"
	"  printf(\"%p exe_hot_function\\n\", (void *)(uintptr_t)exe_hot_function);\n"
	"  printf(\"%p exe_local_function\\n\", (void *)(uintptr_t)exe_local_function);\n"
	"  printf(\"%p lib_hot_function\\n\", lib_hot_address());\n"
	"  fflush(stdout);\n"
	"  return (int)read(0, &c, 1) + exe_hot_function(1) + exe_local_function(1);\n"
	"}\n";

static void
build_programs(void)
{
	write_file(spath("lib.c"), lib_src);
	write_file(spath("exe.c"), exe_src);
	must_run("cc -O1 -g -fno-omit-frame-pointer -shared -fPIC -o %s %s",
		 spath("libsymtest.so"), spath("lib.c"));
	must_run("cc -O1 -g -fPIE -pie -o %s %s -L%s -lsymtest -Wl,-rpath,%s",
		 spath("exe_pie"), spath("exe.c"), scratch_dir(), scratch_dir());
	must_run("cc -O1 -g -fno-pie -no-pie -o %s %s -L%s -lsymtest -Wl,-rpath,%s",
		 spath("exe_nopie"), spath("exe.c"), scratch_dir(), scratch_dir());
	must_run("strip -o %s %s", spath("exe_stripped"), spath("exe_pie"));
}

/* Symbolize the three reported functions of a running copy of exe. */
static void
check_program(struct symbolizer *s, const char *exe, bool stripped)
{
	char *argv[] = { (char *)exe, NULL };
	struct child c = child_start(argv);
	char fn[256], got[512], want[600];
	unsigned long a;
	int seen = 0;

	while (seen < 3 && (a = child_addr(&c, fn, sizeof(fn))) != 0) {
		seen++;
		bool in_lib = strncmp(fn, "lib_", 4) == 0;
		if (in_lib)
			snprintf(want, sizeof(want), "[l] %s", fn);
		else if (stripped)
			snprintf(want, sizeof(want), "[%s]", exe);
		else
			snprintf(want, sizeof(want), "%s", fn);
		/* the entry point and an address inside the function */
		symbolize_user(s, c.pid, a, got, sizeof(got));
		CHECK_STR(got, want);
		symbolize_user(s, c.pid, a + 5, got, sizeof(got));
		CHECK_STR(got, want);
	}
	CHECK_INT(seen, 3);
	child_stop(&c);
}

static void
test_programs(void)
{
	struct symbolizer *s = symbolizer_new(64 << 20);
	struct symbolizer_stats st;

	build_programs();
	check_program(s, spath("exe_pie"), false);
	check_program(s, spath("exe_nopie"), false);
	check_program(s, spath("exe_stripped"), true);
	/* a second run of the PIE maps the same files: tables come from the cache */
	symbolizer_get_stats(s, &st);
	uint64_t hits = st.cache_hits, loads = st.cache_misses;
	check_program(s, spath("exe_pie"), false);
	symbolizer_get_stats(s, &st);
	CHECK(st.cache_hits > hits);
	CHECK(st.cache_bytes > 0);
	(void)loads;
	symbolizer_free(s);
}

__attribute__((noinline)) static int
own_function(int x)
{
	return x * 7 + 1;
}

static void
test_own_process(void)
{
	struct symbolizer *s = symbolizer_new(64 << 20);
	char got[512];

	symbolize_user(s, getpid(), (uintptr_t)own_function + 1, got, sizeof(got));
	CHECK_STR(got, "own_function");
	symbolize_user(s, getpid(), (uintptr_t)test_own_process, got, sizeof(got));
	CHECK_STR(got, "test_own_process");
	/* libc is stripped on Debian: .dynsym names it (one of fork's aliases;
	 * a global alias outranks the weak "fork") */
	symbolize_user(s, getpid(), (uintptr_t)fork, got, sizeof(got));
	CHECK(strcmp(got, "[l] __fork") == 0 || strcmp(got, "[l] __libc_fork") == 0 ||
	      strcmp(got, "[l] fork") == 0);
	/* an address in no mapping */
	symbolize_user(s, getpid(), 0x10, got, sizeof(got));
	CHECK_STR(got, "[unknown] 0x0000000000000010");
	/* truncation keeps the buffer terminated */
	symbolize_user(s, getpid(), (uintptr_t)own_function, got, 5);
	CHECK_STR(got, "own_");
	own_function(1);
	symbolizer_free(s);
}

static void
test_gone_process(void)
{
	struct symbolizer *s = symbolizer_new(1 << 20);
	struct symbolizer_stats st;
	char got[128];
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	symbolize_user(s, pid, 0x401000, got, sizeof(got));
	CHECK_STR(got, "[unknown] 0x0000000000401000");
	symbolize_user(s, pid, 0x401001, got, sizeof(got));
	symbolizer_get_stats(s, &st);
	CHECK_INT(st.lost_processes, 1);	/* once per process, not per address */
	CHECK_INT(st.misses, 2);
	symbolizer_free(s);
}

/* Address of symbol name in /proc/kallsyms, or 0. */
static uint64_t
kallsyms_addr(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], sym[256], type;
	unsigned long long a;
	uint64_t found = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 &&
		    strcmp(sym, name) == 0 && (type == 'T' || type == 't')) {
			found = a;
			break;
		}
	if (f)
		fclose(f);
	return found;
}

static void
test_kernel(void)
{
	struct symbolizer *s = symbolizer_new(1 << 20);
	char got[256];
	uint64_t a = kallsyms_addr("schedule");

	CHECK(a != 0);
	symbolize_kernel(s, a, got, sizeof(got));
	CHECK_STR(got, "[k] schedule");
	symbolize_kernel(s, a + 4, got, sizeof(got));
	CHECK_STR(got, "[k] schedule");
	a = kallsyms_addr("do_sys_openat2");
	symbolize_kernel(s, a + 1, got, sizeof(got));
	CHECK_STR(got, "[k] do_sys_openat2");
	symbolize_kernel(s, 0x1000, got, sizeof(got));
	CHECK_STR(got, "[unknown] 0x0000000000001000");
	symbolizer_free(s);
}

/* Symbols of the live kallsyms that carry a "\t[module]" suffix (modules,
 * BPF programs, ftrace trampolines): named without the suffix. */
static void
test_kernel_live_modules(void)
{
	struct symbolizer *s = symbolizer_new(16 << 20);
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], mod[128], type, got[512], want[300];
	unsigned long long a;
	int seen = 0, right = 0;

	while (f && fgets(line, sizeof(line), f) && seen < 20)
		if (sscanf(line, "%llx %c %255s [%127[^]]]", &a, &type, name, mod) == 4 &&
		    (type == 't' || type == 'T')) {
			snprintf(want, sizeof(want), "[k] %s", name);
			symbolize_kernel(s, a, got, sizeof(got));
			seen++;
			right += strcmp(got, want) == 0;
		}
	if (f)
		fclose(f);
	/* this kernel has no loadable modules, but BPF programs (ours among
	 * them while the PMDA runs) and ftrace trampolines carry suffixes */
	printf("kallsyms symbols with a [module] suffix: %d, named right: %d\n", seen, right);
	CHECK_INT(right, seen);
	symbolizer_free(s);
}

/* A kallsyms file with module symbols, aliases, data symbols and junk. */
static void
test_kernel_modules(void)
{
	struct symbolizer *s = symbolizer_new(1 << 20);
	char got[256];

	write_file(spath("kallsyms"),
		   "ffffffff81000000 T _stext\n"
		   "ffffffff81000100 T core_func\n"
		   "ffffffff81000100 t core_func_alias\n"
		   "ffffffff81000200 D some_data\n"
		   "ffffffff81000300 t core_next\n"
		   "garbage line here\n"
		   "ffffffffc0a01000 t mod_func\t[xfs]\n"
		   "ffffffffc0a01080 T mod_export\t[xfs]\n"
		   "ffffffffc0b00000 t bpf_prog_6deef7357e7b4530_sd_fw_ingress\t[bpf]\n"
		   "ffffffffc0c00000 t a;b\x01name\t[evil]\n");
	symbolizer_set_kallsyms(s, spath("kallsyms"));
	symbolize_kernel(s, 0xffffffff81000150, got, sizeof(got));
	CHECK_STR(got, "[k] core_func");
	symbolize_kernel(s, 0xffffffff81000250, got, sizeof(got));	/* data skipped */
	CHECK_STR(got, "[k] core_func");
	symbolize_kernel(s, 0xffffffffc0a01010, got, sizeof(got));
	CHECK_STR(got, "[k] mod_func");
	symbolize_kernel(s, 0xffffffffc0a01080, got, sizeof(got));
	CHECK_STR(got, "[k] mod_export");
	symbolize_kernel(s, 0xffffffffc0b00010, got, sizeof(got));
	CHECK_STR(got, "[k] bpf_prog_6deef7357e7b4530_sd_fw_ingress");
	symbolize_kernel(s, 0xffffffffc0c00001, got, sizeof(got));
	CHECK_STR(got, "[k] a,b?name");
	symbolizer_free(s);
}

/* A symbol defined with .symver carries "@@V2" in .symtab: the frame does not. */
static void
test_symbol_versions(void)
{
	struct symbolizer *s = symbolizer_new(8 << 20);
	char exe[512], got[256], fn[256];

	write_file(spath("ver.c"),
		   "#include <stdint.h>\n"
		   "__attribute__((noinline)) int vf_impl(int x) { return x * 9 + 1; }\n"
		   "__asm__(\".symver vf_impl, versioned_function@@V2\");\n"
		   "void *vf_address(void) { return (void *)(uintptr_t)vf_impl; }\n");
	write_file(spath("ver.map"), "V2 { global: versioned_function; vf_address; local: *; };\n");
	write_file(spath("vermain.c"),
		   "#include <stdio.h>\n#include <unistd.h>\nvoid *vf_address(void);\n"
		   "int main(void) { char c; printf(\"%p x\\n\", vf_address()); fflush(stdout);"
		   " return (int)read(0, &c, 1); }\n");
	must_run("cc -O1 -shared -fPIC -Wl,--version-script=%s -o %s %s", spath("ver.map"),
		 spath("libver.so"), spath("ver.c"));
	must_run("nm %s | grep -q 'versioned_function@@V2'", spath("libver.so"));
	snprintf(exe, sizeof(exe), "%s", spath("vermain"));
	must_run("cc -O1 -o %s %s -L%s -lver -Wl,-rpath,%s", exe, spath("vermain.c"),
		 scratch_dir(), scratch_dir());
	char *argv[] = { exe, NULL };
	struct child c = child_start(argv);
	unsigned long a = child_addr(&c, fn, sizeof(fn));
	symbolize_user(s, c.pid, a + 1, got, sizeof(got));
	/* vf_impl is the local alias; the global versioned name outranks it */
	CHECK_STR(got, "[l] versioned_function");
	child_stop(&c);
	symbolizer_free(s);
}

static void
test_sanitize(void)
{
	char a[] = "std::foo;bar\tbaz\n\x7f";

	frame_name_sanitize(a);
	CHECK_STR(a, "std::foo,bar?baz??");
}

int
main(void)
{
	test_sanitize();
	test_kernel();
	test_kernel_modules();
	test_kernel_live_modules();
	test_own_process();
	test_gone_process();
	test_programs();
	test_symbol_versions();
	return unit_report("test_sym");
}
