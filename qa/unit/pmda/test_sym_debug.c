/*
 * test_sym_debug.c - symbols of stripped binaries from separate debug
 * information the test builds itself: .gnu_debuglink beside the binary and
 * in .debug/, the build-id tree (under a fake root, as a container's
 * /proc/PID/root would be), MiniDebugInfo made the way Fedora makes it, and
 * the bad cases: a debug file from another build (CRC / build-id
 * mismatch), corrupt xz data, a stripped binary with nothing at all.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include "unit.h"
#include "symbolizer/sym_internal.h"
#include "sym_testlib.h"

static const char prog_src[] =
	"#include <stdio.h>\n#include <stdint.h>\n#include <unistd.h>\n"
	"__attribute__((noinline)) int debug_only_function(int x)\n"
	"{ volatile int s = 0; for (int i = 0; i < x; i++) s += i; return s; }\n"
	"__attribute__((noinline)) static int static_helper(int x) { return x * VARIANT; }\n"
	"int main(void) {\n"
	"  char c;\n"
	"  printf(\"%p debug_only_function\\n\", (void *)(uintptr_t)debug_only_function);\n"
	"  fflush(stdout);\n"
	"  return (int)read(0, &c, 1) + debug_only_function(2) + static_helper(1);\n"
	"}\n";

/* Address of symbol name in path's .symtab, from nm. */
static uint64_t
nm_addr(const char *path, const char *name)
{
	char cmd[600], line[512], sym[256], type;
	unsigned long long a;
	uint64_t found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s", path);
	if ((p = popen(cmd, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && strcmp(sym, name) == 0)
			found = a;
	pclose(p);
	return found;
}

/* Load path (as if under root) and name the symbol at vaddr; returns how
 * many debug files the load refused. */
static unsigned
check_load(const char *root, const char *path, uint64_t vaddr, const char *want,
	   enum sym_source want_src)
{
	char full[1024];
	int fd;
	struct sym_elf *e;
	unsigned mismatches;
	long i;

	snprintf(full, sizeof(full), "%s%s", root, path);
	fd = open(full, O_RDONLY);
	CHECK(fd >= 0);
	if (fd < 0)
		return 0;
	e = sym_elf_load(fd, root, path);
	close(fd);
	CHECK(e != NULL);
	if (e == NULL)
		return 0;
	i = sym_list_find(&e->list, vaddr + 1);
	CHECK_STR(i >= 0 ? sym_list_name(&e->list, i) : "(none)", want);
	CHECK_INT(e->source, want_src);
	mismatches = e->debug_mismatches;
	sym_elf_free(e);
	return mismatches;
}

static void
build(const char *name, int variant)
{
	char src[64];

	snprintf(src, sizeof(src), "%s.c", name);
	write_file(spath(src), prog_src);
	must_run("cc -O1 -g -Wl,--build-id -DVARIANT=%d -o %s %s", variant, spath(name), spath(src));
}

static void
test_debuglink(void)
{
	uint64_t a;

	build("dl", 3);
	a = nm_addr(spath("dl"), "debug_only_function");
	CHECK(a != 0);
	must_run("cd %s && objcopy --only-keep-debug dl dl.debug && "
		 "strip --strip-all -o dl_s dl && objcopy --add-gnu-debuglink=dl.debug dl_s",
		 scratch_dir());
	check_load("", spath("dl_s"), a, "debug_only_function", SYM_SRC_DEBUGLINK);
	/* the static function is in no dynamic table: only the debug file has it */
	check_load("", spath("dl_s"), nm_addr(spath("dl"), "static_helper"),
		   "static_helper", SYM_SRC_DEBUGLINK);

	/* the same link found in the .debug/ directory */
	must_run("cd %s && mkdir -p .debug && mv dl.debug .debug/", scratch_dir());
	check_load("", spath("dl_s"), a, "debug_only_function", SYM_SRC_DEBUGLINK);

	/* another build's debug file under the linked name: the CRC refuses it */
	build("dl_other", 4);
	must_run("cd %s && objcopy --only-keep-debug dl_other .debug/dl.debug", scratch_dir());
	CHECK(check_load("", spath("dl_s"), a, "(none)", SYM_SRC_NONE) > 0);

	/* the link points nowhere */
	must_run("rm -rf %s/.debug", scratch_dir());
	check_load("", spath("dl_s"), a, "(none)", SYM_SRC_NONE);
}

/* A binary in a container-like root whose debug file is in the build-id tree. */
static void
test_build_id(void)
{
	char id[128] = "", cmd[600], dir[700];
	uint64_t a;
	FILE *p;

	build("bid", 5);
	a = nm_addr(spath("bid"), "debug_only_function");
	snprintf(cmd, sizeof(cmd), "readelf -n %s | awk '/Build ID/ { print $3 }'", spath("bid"));
	p = popen(cmd, "r");
	CHECK(p != NULL && fgets(id, sizeof(id), p) != NULL);
	if (p)
		pclose(p);
	id[strcspn(id, "\n")] = '\0';
	CHECK(strlen(id) > 4);
	snprintf(dir, sizeof(dir), "%s/root/usr/lib/debug/.build-id/%.2s", scratch_dir(), id);
	must_run("mkdir -p %s %s/root/opt/app && strip --strip-all -o %s/root/opt/app/bid %s && "
		 "objcopy --only-keep-debug %s %s/%s.debug",
		 dir, scratch_dir(), scratch_dir(), spath("bid"), spath("bid"), dir, id + 2);
	check_load(spath("root"), "/opt/app/bid", a, "debug_only_function", SYM_SRC_BUILDID);

	/* a debug file of another build at that build-id path is refused */
	build("bid_other", 6);
	must_run("objcopy --only-keep-debug %s %s/%s.debug", spath("bid_other"), dir, id + 2);
	CHECK(check_load(spath("root"), "/opt/app/bid", a, "(none)", SYM_SRC_NONE) > 0);
}

/* MiniDebugInfo as Fedora's find-debuginfo builds it. */
static void
make_minidebug(const char *exe, const char *out)
{
	must_run("cd %s && nm -D %s --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms && "
		 "nm %s --format=posix --defined-only | awk '$2 == \"T\" || $2 == \"t\" { print $1 }' | sort > funcsyms && "
		 "comm -13 dynsyms funcsyms > keep_symbols && "
		 "objcopy --only-keep-debug %s mini.full && "
		 "objcopy -S --remove-section .gdb_index --remove-section .comment "
		 "--keep-symbols=keep_symbols mini.full mini_debuginfo && "
		 "rm -f mini_debuginfo.xz && xz mini_debuginfo && "
		 "strip --strip-all -R .comment -o %s %s && "
		 "objcopy --add-section .gnu_debugdata=mini_debuginfo.xz %s",
		 scratch_dir(), exe, exe, exe, out, exe, out);
}

static void
test_minidebuginfo(void)
{
	uint64_t a, h;

	build("mdi", 7);
	a = nm_addr(spath("mdi"), "debug_only_function");
	h = nm_addr(spath("mdi"), "static_helper");
	make_minidebug(spath("mdi"), spath("mdi_s"));
	check_load("", spath("mdi_s"), a, "debug_only_function", SYM_SRC_MINIDEBUG);
	check_load("", spath("mdi_s"), h, "static_helper", SYM_SRC_MINIDEBUG);

	/* garbage where the xz stream should be: no names, no crash, counted */
	must_run("cd %s && head -c 4096 /dev/urandom > junk.xz && "
		 "strip --strip-all -o mdi_bad mdi && objcopy --add-section .gnu_debugdata=junk.xz mdi_bad",
		 scratch_dir());
	CHECK(check_load("", spath("mdi_bad"), a, "(none)", SYM_SRC_NONE) > 0);
	/* a valid xz stream holding something that is not an ELF */
	must_run("cd %s && head -c 10000 /dev/urandom | xz > notelf.xz && "
		 "strip --strip-all -o mdi_bad2 mdi && objcopy --add-section .gnu_debugdata=notelf.xz mdi_bad2",
		 scratch_dir());
	check_load("", spath("mdi_bad2"), a, "(none)", SYM_SRC_NONE);
}

/* Through the public API, from a live process: the debuglink is looked up
 * under /proc/PID/root and frames are named from the debug file. */
static void
test_live_debuglink(void)
{
	struct symbolizer *s = symbolizer_new(16 << 20);
	char fn[256], got[512];
	unsigned long a;

	build("live", 8);
	must_run("cd %s && objcopy --only-keep-debug live live.debug && "
		 "strip --strip-all -o live_s live && objcopy --add-gnu-debuglink=live.debug live_s",
		 scratch_dir());
	char *argv[] = { (char *)spath("live_s"), NULL };
	struct child c = child_start(argv);
	a = child_addr(&c, fn, sizeof(fn));
	CHECK(a != 0);
	symbolize_user(s, c.pid, a + 2, got, sizeof(got));
	CHECK_STR(got, "debug_only_function");
	child_stop(&c);
	symbolizer_free(s);
}

/* A refused debug file is counted by the symbolizer that met it, and by no
 * other: the counter is the symbolizer's, not the process's. */
static void
test_live_mismatch_counted(void)
{
	struct symbolizer *s = symbolizer_new(16 << 20), *other = symbolizer_new(16 << 20);
	struct symbolizer_stats st;
	char fn[256], got[512];
	unsigned long a;

	build("mis", 9);
	build("mis_other", 10);
	must_run("cd %s && objcopy --only-keep-debug mis mis.debug && "
		 "strip --strip-all -o mis_s mis && objcopy --add-gnu-debuglink=mis.debug mis_s && "
		 "objcopy --only-keep-debug mis_other mis.debug", scratch_dir());
	char *argv[] = { (char *)spath("mis_s"), NULL };
	struct child c = child_start(argv);
	a = child_addr(&c, fn, sizeof(fn));
	CHECK(a != 0);
	symbolize_user(s, c.pid, a + 2, got, sizeof(got));
	CHECK(strcmp(got, "debug_only_function") != 0);
	symbolizer_get_stats(s, &st);
	CHECK_INT(st.debug_mismatches, 1);
	symbolizer_get_stats(other, &st);
	CHECK_INT(st.debug_mismatches, 0);
	child_stop(&c);
	symbolizer_free(s);
	symbolizer_free(other);
}

int
main(void)
{
	test_debuglink();
	test_build_id();
	test_minidebuginfo();
	test_live_debuglink();
	test_live_mismatch_counted();
	return unit_report("test_sym_debug");
}
