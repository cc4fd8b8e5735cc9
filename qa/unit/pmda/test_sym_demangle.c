/*
 * test_sym_demangle.c - demangled frame names: C++ (namespaces, class and
 * function templates) built by g++, and Rust built by rustc with both
 * symbol-mangling schemes (legacy "_ZN...17h<hash>E" and v0 "_R..."),
 * symbolized from the live processes; plus libiberty on fixed strings.
 */
#include <stdint.h>
#include "unit.h"
#include "symbolizer/sym_internal.h"
#include "sym_testlib.h"

static const char cxx_src[] =
	"#include <cstdio>\n#include <unistd.h>\n"
	"namespace geo {\n"
	"template <typename T> struct Grid {\n"
	"  __attribute__((noinline)) static T sum(T v, int n)\n"
	"  { T s{}; for (int i = 0; i < n; i++) s += v * i; return s; }\n"
	"};\n"
	"template <typename T> __attribute__((noinline)) T scale(T a, double f) { return a * f; }\n"
	"namespace inner { __attribute__((noinline)) int plain(int x) { return x * 5; } }\n"
	"}\n"
	"int main() {\n"
	"  char c;\n"
	"  std::printf(\"%p geo::Grid<long>::sum(long, int)\\n\", (void *)&geo::Grid<long>::sum);\n"
	"  std::printf(\"%p double geo::scale<double>(double, double)\\n\", (void *)&geo::scale<double>);\n"
	"  std::printf(\"%p geo::inner::plain(int)\\n\", (void *)&geo::inner::plain);\n"
	"  std::fflush(stdout);\n"
	"  return (int)read(0, &c, 1) + (int)geo::Grid<long>::sum(2, 3) +\n"
	"         (int)geo::scale<double>(1.0, 2.0) + geo::inner::plain(1);\n"
	"}\n";

static const char rust_src[] =
	"use std::io::Read;\n"
	"mod engine {\n"
	"    pub struct Shape<T> { pub v: T }\n"
	"    impl<T: Copy + Into<u64>> Shape<T> {\n"
	"        #[inline(never)]\n"
	"        pub fn area(&self, n: u64) -> u64 {\n"
	"            let mut s = 0u64; for i in 0..n { s = s.wrapping_add(i * self.v.into()); } s }\n"
	"    }\n"
	"    #[inline(never)]\n"
	"    pub fn hot_loop(n: u64) -> u64 { let mut s = 0u64; for i in 0..n { s ^= i; } s }\n"
	"}\n"
	"fn main() {\n"
	"    let sh = engine::Shape { v: 3u32 };\n"
	"    println!(\"{:p} hot_loop\", engine::hot_loop as fn(u64) -> u64);\n"
	"    println!(\"{:p} area\", engine::Shape::<u32>::area as fn(&engine::Shape<u32>, u64) -> u64);\n"
	"    let mut b = [0u8; 1];\n"
	"    let _ = std::io::stdin().read(&mut b);\n"
	"    println!(\"{}\", engine::hot_loop(b[0] as u64) + sh.area(2));\n"
	"}\n";

static void
test_strings(void)
{
	char *d;

	d = sym_demangle("_ZN2ns6WorkerIiE3runEi");
	CHECK_STR(d, "ns::Worker<int>::run(int)");
	free(d);
	d = sym_demangle("_ZN4core3fmt5write17h0123456789abcdefE");	/* Rust legacy */
	CHECK_STR(d, "core::fmt::write");
	free(d);
	d = sym_demangle("_RNvNtCs6GmmlP4bgsG_1r6engine8hot_loop");	/* Rust v0 */
	CHECK_STR(d, "r::engine::hot_loop");
	free(d);
	d = sym_demangle("__ZN3foo3barEv");	/* an extra leading underscore */
	CHECK_STR(d, "foo::bar()");
	free(d);
	CHECK(sym_demangle("main") == NULL);
	CHECK(sym_demangle("_Zgarbage!!") == NULL);
	CHECK(sym_demangle("_R") == NULL);
	CHECK(sym_demangle("_") == NULL);
	CHECK(sym_demangle("") == NULL);
}

/* Run exe; each line it prints names a function and its address. */
static int
check_live(struct symbolizer *s, const char *exe, int expect)
{
	char *argv[] = { (char *)exe, NULL };
	struct child c = child_start(argv);
	char fn[256], got[512];
	unsigned long a;
	int seen = 0;

	/* the child waits on its stdin after printing: read only what it prints */
	while (seen < expect && (a = child_addr(&c, fn, sizeof(fn))) != 0) {
		symbolize_user(s, c.pid, a + 1, got, sizeof(got));
		CHECK_STR(got, fn);
		seen++;
	}
	child_stop(&c);
	return seen;
}

static void
test_cxx(void)
{
	struct symbolizer *s = symbolizer_new(64 << 20);

	write_file(spath("geo.cc"), cxx_src);
	must_run("g++ -O1 -g -fno-omit-frame-pointer -o %s %s", spath("geo"), spath("geo.cc"));
	CHECK_INT(check_live(s, spath("geo"), 3), 3);
	symbolizer_free(s);
}

static const char *
rustc_path(void)
{
	if (have_program("rustc"))
		return "rustc";
	if (access("/root/.cargo/bin/rustc", X_OK) == 0)
		return "/root/.cargo/bin/rustc";
	return NULL;
}

/* Build and check the Rust program with one mangling scheme.  Stable rustc
 * only accepts "legacy" as an unstable option now that v0 is the default. */
static void
test_rust_one(const char *rustc, const char *scheme, const char *hot, const char *area)
{
	struct symbolizer *s = symbolizer_new(64 << 20);
	char exe[64], cmd[1024];
	struct child c;
	char fn[256], got[512];
	unsigned long a;
	int seen = 0;

	snprintf(exe, sizeof(exe), "rs_%s", scheme);
	write_file(spath("shapes.rs"), rust_src);
	snprintf(cmd, sizeof(cmd), "-C opt-level=1 -C force-frame-pointers=yes "
		 "-C symbol-mangling-version=%s --crate-name shapes -o %s %s",
		 scheme, spath(exe), spath("shapes.rs"));
	if (strcmp(scheme, "legacy") == 0)
		must_run("RUSTC_BOOTSTRAP=1 %s -Z unstable-options %s 2>/dev/null", rustc, cmd);
	else
		must_run("%s %s", rustc, cmd);
	char *argv[] = { (char *)spath(exe), NULL };
	c = child_start(argv);
	while (seen < 2 && (a = child_addr(&c, fn, sizeof(fn))) != 0) {
		symbolize_user(s, c.pid, a + 1, got, sizeof(got));
		CHECK_STR(got, strcmp(fn, "hot_loop") == 0 ? hot : area);
		seen++;
	}
	child_stop(&c);
	CHECK_INT(seen, 2);
	symbolizer_free(s);
}

static void
test_rust(void)
{
	const char *rustc = rustc_path();

	CHECK(rustc != NULL);	/* these machines have rustc: its absence is a failure */
	if (rustc == NULL)
		return;
	test_rust_one(rustc, "legacy", "shapes::engine::hot_loop", "shapes::engine::Shape<T>::area");
	test_rust_one(rustc, "v0", "shapes::engine::hot_loop", "<shapes::engine::Shape<u32>>::area");
}

int
main(void)
{
	test_strings();
	test_cxx();
	test_rust();
	return unit_report("test_sym_demangle");
}
