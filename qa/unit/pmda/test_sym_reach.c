/*
 * test_sym_reach.c - how far a symbol reaches, on a library the test
 * assembles: a symbol with no size covers up to the next symbol and never
 * past its section (as _init must not name the .plt after .init); an
 * address past a sized symbol is nobody's, whatever precedes it; and the
 * same holds when the symbols come from a separate debug file.
 */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include "unit.h"
#include "symbolizer/sym_internal.h"
#include "pmda/sym_testlib.h"

/* Two code sections of their own (orphans: the linker keeps them apart):
 * .reach_one holds a size-less symbol and 64 bytes nothing names after its
 * first 16; .reach_two starts with 32 bytes no symbol covers, then a sized
 * function followed by 32 bytes of padding, then a size-less one. */
static const char asm_src[] =
	".section .reach_one,\"ax\",@progbits\n"
	".globl reach_init\n.type reach_init,@function\n"
	"reach_init:\n.fill 16,1,0x90\n"
	".globl reach_next\n.type reach_next,@function\n"
	"reach_next:\n.fill 48,1,0x90\n"
	".section .reach_two,\"ax\",@progbits\n"
	".fill 32,1,0x90\n"
	".globl reach_sized\n.type reach_sized,@function\n"
	"reach_sized:\n.fill 16,1,0x90\n.size reach_sized, 16\n"
	".fill 32,1,0xcc\n"
	".globl reach_last\n.type reach_last,@function\n"
	"reach_last:\n.fill 8,1,0x90\n";

/* Address of section name in path, from readelf. */
static uint64_t
section_addr(const char *path, const char *name)
{
	char cmd[600];
	unsigned long long a = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -SW %s | awk '{ for (i = 1; i < NF; i++) if ($i == \"%s\") print $(i + 2) }'", path, name);
	if ((p = popen(cmd, "r")) == NULL || fscanf(p, "%llx", &a) != 1)
		exit(2);
	pclose(p);
	return a;
}

static const char *
name_at(struct sym_elf *e, uint64_t addr)
{
	long i = sym_list_find(&e->list, addr);

	return i < 0 ? "(none)" : sym_list_name(&e->list, i);
}

static void
check_reach(struct sym_elf *e, uint64_t one, uint64_t two)
{
	CHECK_STR(name_at(e, one), "reach_init");
	CHECK_STR(name_at(e, one + 15), "reach_init");	/* up to the next symbol */
	CHECK_STR(name_at(e, one + 16), "reach_next");
	CHECK_STR(name_at(e, one + 63), "reach_next");	/* to its section's end */
	/* the next section: nothing of .reach_one reaches into it */
	CHECK_STR(name_at(e, two), "(none)");
	CHECK_STR(name_at(e, two + 31), "(none)");
	CHECK_STR(name_at(e, two + 32), "reach_sized");
	CHECK_STR(name_at(e, two + 47), "reach_sized");
	/* past a sized symbol: nobody's, though reach_sized precedes it */
	CHECK_STR(name_at(e, two + 48), "(none)");
	CHECK_STR(name_at(e, two + 79), "(none)");
	CHECK_STR(name_at(e, two + 80), "reach_last");
	CHECK_STR(name_at(e, two + 87), "reach_last");
	CHECK_STR(name_at(e, two + 88), "(none)");	/* the last one, at its section's end */
}

static struct sym_elf *
load(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct sym_elf *e = fd >= 0 ? sym_elf_load(fd, "", path) : NULL;

	if (fd >= 0)
		close(fd);
	return e;
}

int
main(void)
{
	const char *lib = spath("libreach.so"), *s = spath("reach.s");
	struct sym_elf *e;
	uint64_t one, two;

	write_file(s, asm_src);
	must_run("cc -shared -nostdlib -Wl,--build-id -o %s %s", lib, s);
	one = section_addr(lib, ".reach_one");
	two = section_addr(lib, ".reach_two");
	CHECK(one != 0 && two >= one + 64);

	e = load(lib);
	CHECK(e != NULL && e->source == SYM_SRC_SYMTAB);
	if (e)
		check_reach(e, one, two);
	sym_elf_free(e);

	/* the same symbols from a debug file: its sections bound them */
	must_run("cd %s && objcopy --only-keep-debug libreach.so reach.debug && "
		 "strip --strip-all libreach.so && objcopy --add-gnu-debuglink=reach.debug libreach.so",
		 scratch_dir());
	e = load(lib);
	CHECK(e != NULL && e->source == SYM_SRC_DEBUGLINK);
	if (e)
		check_reach(e, one, two);
	sym_elf_free(e);
	return unit_report("test_sym_reach");
}
