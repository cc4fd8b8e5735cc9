/*
 * test_sym_names.c - the differential check of frame names on a corpus
 * built here from qa/src/names/ in the shapes users meet, plus Debian's
 * own binaries and the vDSO: every sampled instruction boundary named by
 * us and by elfutils (names_difflib.h).  Fails unless wrong is 0, and
 * unless each shape was compared at all.
 *
 * Programs are started stopped at exec (ptrace), so their executable and
 * ld.so are mapped as they run and /proc/PID/exe says which is the main
 * executable; libraries are mapped into this process.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include "unit.h"
#include "pmda/sym_testlib.h"
#include "pmda/names_difflib.h"

#define PER_FILE	6000	/* addresses sampled per file at most */

static struct nd_counts total;
static const char *src;		/* qa/src/names */
static FILE *report;
static bool ld_done;

/* Compare the executable mappings named path in pid (sampled from file). */
static size_t
check_file(struct symbolizer *s, pid_t pid, const char *label, const char *path,
	   const char *file)
{
	static uint64_t ips[PER_FILE];
	struct nd_counts c = { 0 };
	size_t n = nd_sample(pid, path, file, ips, PER_FILE);

	if (n == 0 || !nd_compare(s, pid, ips, n, &c, label, report)) {
		fprintf(report, "%s: nothing compared\n", label);
		CHECK(n > 0);
		return 0;
	}
	nd_print(report, label, &c);
	CHECK_INT(c.wrong, 0);
	nd_add(&total, &c);
	return c.compared;
}

/* Run prog stopped at exec and compare its executable and its ld.so. */
static void
check_program(const char *label, const char *prog)
{
	struct symbolizer *s = symbolizer_new(256u << 20);
	struct nd_map *maps = NULL;
	char ld[64];
	size_t nmaps;
	pid_t pid;
	int status;

	if ((pid = fork()) == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		fprintf(report, "%s: %s did not stop at exec\n", label, prog);
		CHECK(0);
		symbolizer_free(s);
		return;
	}
	check_file(s, pid, label, prog, prog);
	/* the dynamic loader (once): Debian's, no debug file, a library */
	nmaps = nd_read_maps(pid, &maps);
	for (size_t i = 0; i < nmaps && !ld_done; i++)
		if (strstr(maps[i].path, "/ld-linux") && strcmp(maps[i].path, prog) != 0) {
			ld_done = true;
			snprintf(ld, sizeof(ld), "%s: ld.so", label);
			check_file(s, pid, ld, maps[i].path, maps[i].path);
			break;
		}
	free(maps);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	symbolizer_free(s);
}

/* Map lib into this process, as a loader would its text, and compare. */
static void
check_library(const char *label, const char *lib)
{
	struct symbolizer *s = symbolizer_new(256u << 20);
	char *real = realpath(lib, NULL);	/* as the maps name it */
	int fd = real ? open(real, O_RDONLY) : -1;
	struct stat st;
	void *base;

	if (fd < 0 || fstat(fd, &st) != 0 ||
	    (base = mmap(NULL, st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		fprintf(report, "%s: cannot map %s\n", label, lib);
		CHECK(0);
		if (fd >= 0)
			close(fd);
		free(real);
		symbolizer_free(s);
		return;
	}
	close(fd);
	check_file(s, getpid(), label, real, real);
	munmap(base, st.st_size);
	free(real);
	symbolizer_free(s);
}

/* Our own [vdso], read into a file for objdump. */
static void
check_vdso(void)
{
	struct symbolizer *s = symbolizer_new(64u << 20);
	struct nd_map *maps = NULL;
	size_t n = nd_read_maps(getpid(), &maps), done = 0;

	for (size_t i = 0; i < n; i++)
		if (strcmp(maps[i].path, "[vdso]") == 0) {
			spill(spath("vdso.so"), (const unsigned char *)(uintptr_t)maps[i].start,
			      maps[i].end - maps[i].start);
			done = check_file(s, getpid(), "vdso", "[vdso]", spath("vdso.so"));
		}
	CHECK(done > 0);
	free(maps);
	symbolizer_free(s);
}

/* cc flags for the C program, and what is done to it after. */
struct shape {
	const char	*name;
	const char	*cflags;
	const char	*after;		/* shell, with %1$s the program path */
};

static const struct shape shapes[] = {
	{ "full -O1 -g", "-O1 -g", "" },
	{ "strip-all", "-O1 -g", "strip --strip-all %1$s" },
	{ "strip-debug", "-O1 -g", "strip --strip-debug %1$s" },
	{ "strip-all, -O2 (.cold)", "-O2 -g", "strip --strip-all %1$s" },
	{ "-O2 (.cold) full", "-O2 -g", "" },
	{ "only-keep-debug + debuglink", "-O1 -g",
	  "objcopy --only-keep-debug %1$s %1$s.debug && strip --strip-all %1$s && "
	  "objcopy --add-gnu-debuglink=%1$s.debug %1$s" },
	{ "MiniDebugInfo", "-O2 -g",
	  "nm -D %1$s --format=posix --defined-only | awk '{print $1}' | sort > %1$s.dyn && "
	  "nm %1$s --format=posix --defined-only | awk '$2 ~ /^[TtWw]$/ {print $1}' | sort > %1$s.fn && "
	  "comm -13 %1$s.dyn %1$s.fn > %1$s.keep && "
	  "objcopy --only-keep-debug %1$s %1$s.dbg && "
	  "objcopy -S --remove-section .gdb_index --remove-section .comment "
	  "--keep-symbols=%1$s.keep %1$s.dbg %1$s.mini && xz -f %1$s.mini && "
	  "strip --strip-all %1$s && objcopy --add-section .gnu_debugdata=%1$s.mini.xz %1$s" },
	{ "non-PIE strip-all", "-O1 -g -no-pie", "strip --strip-all %1$s" },
	{ "non-PIE full", "-O1 -g -no-pie", "" },
	{ "static strip-all", "-O1 -g -static", "strip --strip-all %1$s" },
	{ "static full", "-O1 -g -static", "" },
	{ "gc-sections", "-O1 -g -ffunction-sections -Wl,--gc-sections", "" },
	{ "gc-sections strip-all", "-O1 -g -ffunction-sections -Wl,--gc-sections",
	  "strip --strip-all %1$s" },
	{ "LTO", "-O2 -g -flto", "" },
	{ "LTO strip-all", "-O2 -g -flto", "strip --strip-all %1$s" },
	{ "exports (.dynsym) strip-all", "-O1 -g -rdynamic", "strip --strip-all %1$s" },
	{ "exports (.dynsym) full", "-O1 -g -rdynamic", "" },
};

static void
check_shapes(void)
{
	char prog[600], label[128];

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		snprintf(prog, sizeof(prog), "%s", spath("prog"));
		snprintf(prog + strlen(prog), sizeof(prog) - strlen(prog), "%zu", i);
		must_run("cc %s -o %s %s/names_prog.c", shapes[i].cflags, prog, src);
		if (shapes[i].after[0]) {
			char cmd[2048];
			snprintf(cmd, sizeof(cmd), shapes[i].after, prog);
			must_run("%s", cmd);
		}
		snprintf(label, sizeof(label), "C %s", shapes[i].name);
		check_program(label, prog);
	}
}

/* A debug file under /usr/lib/debug/.build-id, where -dbgsym packages
 * put theirs (as root only: it is the system's directory). */
static void
check_build_id_dir(void)
{
	char prog[600], dir[600], id[128] = "", cmd[1024];
	FILE *p;

	if (geteuid() != 0 || access("/usr/lib/debug", W_OK) != 0) {
		fprintf(report, "C build-id debug file: not run (not root)\n");
		return;
	}
	snprintf(prog, sizeof(prog), "%s", spath("prog_bid"));
	/* a build-id of our own: no package's file is touched */
	must_run("cc -O1 -g -DNAMES_SALT=\\\"%d.%ld\\\" -o %s %s/names_prog.c", (int)getpid(),
		 (long)time(NULL), prog, src);
	snprintf(cmd, sizeof(cmd), "readelf -n %s | awk '/Build ID:/ { print $3 }'", prog);
	if ((p = popen(cmd, "r")) == NULL || fscanf(p, "%127s", id) != 1) {
		CHECK(0);
		if (p)
			pclose(p);
		return;
	}
	pclose(p);
	snprintf(dir, sizeof(dir), "/usr/lib/debug/.build-id/%.2s", id);
	must_run("mkdir -p %s && objcopy --only-keep-debug %s %s/%s.debug && strip --strip-all %s",
		 dir, prog, dir, id + 2, prog);
	check_program("C build-id debug file", prog);
	snprintf(cmd, sizeof(cmd), "%s/%s.debug", dir, id + 2);
	unlink(cmd);
	rmdir(dir);
}

int
main(int argc, char **argv)
{
	static const char *debian_programs[] = {
		"/usr/bin/python3.11", "/usr/bin/ls", "/usr/bin/bash", "/usr/bin/perl",
	};
	static const char *debian_libraries[] = {
		"/usr/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libelf.so.1",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	};

	(void)argc;
	report = stdout;
	src = getenv("NAMES_SRC") ? getenv("NAMES_SRC") : "qa/src/names";
	(void)argv;
	if (access(src, R_OK) != 0)
		unit_skip("test_sym_names", "qa/src/names not found (run from the top of the tree)");
	if (!have_program("eu-addr2line") || !have_program("objdump"))
		unit_skip("test_sym_names", "eu-addr2line or objdump missing (make deps)");

	check_shapes();
	check_build_id_dir();

	must_run("cc -O1 -g -shared -fPIC -o %s %s/names_lib.c", spath("libnames.so"), src);
	check_library("C library full", spath("libnames.so"));
	must_run("strip --strip-all -o %s %s", spath("libnames_s.so"), spath("libnames.so"));
	check_library("C library strip-all", spath("libnames_s.so"));

	if (have_program("c++")) {
		must_run("c++ -O1 -g -o %s %s/names_cxx.cc", spath("cxx"), src);
		check_program("C++ full", spath("cxx"));
		must_run("c++ -O2 -g -rdynamic -o %s %s/names_cxx.cc && strip --strip-all %s",
			 spath("cxx_s"), src, spath("cxx_s"));
		check_program("C++ exports strip-all", spath("cxx_s"));
	}
	if (have_program("rustc")) {
		must_run("rustc -O -g -o %s %s/names_rust.rs 2>/dev/null", spath("rust"), src);
		check_program("Rust", spath("rust"));
	} else {
		fprintf(report, "Rust: not run (no rustc)\n");
	}

	check_vdso();
	for (size_t i = 0; i < sizeof(debian_programs) / sizeof(debian_programs[0]); i++)
		if (access(debian_programs[i], X_OK) == 0)
			check_program(debian_programs[i], debian_programs[i]);
	for (size_t i = 0; i < sizeof(debian_libraries) / sizeof(debian_libraries[0]); i++)
		if (access(debian_libraries[i], R_OK) == 0)
			check_library(debian_libraries[i], debian_libraries[i]);

	nd_print(report, "all", &total);
	CHECK(total.compared > 0);
	CHECK_INT(total.wrong, 0);
	return unit_report("test_sym_names");
}
