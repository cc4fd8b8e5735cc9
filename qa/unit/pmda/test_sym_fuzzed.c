/*
 * test_sym_fuzzed.c - what the fuzz harnesses (qa/fuzz/pmda/) found in the
 * symbolizer, one test per finding, each rebuilt here from real compiler
 * output and the one defect the fuzzer put in it.  The crashing inputs
 * themselves are in qa/fuzz/corpus/, which `make fuzz` replays.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include "unit.h"
#include "symbolizer/sym_internal.h"
#include "sym_testlib.h"

/* Set the entry size of path's first section of type type (ELF64, in place). */
static void
set_entsize(const char *path, uint32_t type, uint64_t entsize)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	int fd = open(path, O_RDWR);

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		exit(2);
	for (int i = 0; i < eh.e_shnum; i++) {
		off_t at = eh.e_shoff + (off_t)i * eh.e_shentsize;

		if (pread(fd, &sh, sizeof(sh), at) != sizeof(sh))
			exit(2);
		if (sh.sh_type == type) {
			sh.sh_entsize = entsize;
			if (pwrite(fd, &sh, sizeof(sh), at) != sizeof(sh))
				exit(2);
			break;
		}
	}
	close(fd);
}

/*
 * fuzz_sym_debug: a symbol table holding less than one entry (its entry
 * size bigger than the table), read after a table that had symbols but no
 * functions, made realloc(p, 0) free the table while the entry list kept
 * pointing at it: a double free at unload.  Here: a library exporting only
 * data (its .dynsym has no function) whose MiniDebugInfo .symtab claims
 * entries of 32 MB, as the fuzzer's did.
 */
static void
test_symtab_shorter_than_an_entry(void)
{
	struct sym_elf *e;
	int fd;

	write_file(spath("data.c"), "int exported_data = 1;\n");
	must_run("cd %s && cc -shared -fPIC -nostdlib -o data.so data.c && "
		 "objcopy --only-keep-debug data.so inner && strip --strip-all -o data_s.so data.so",
		 scratch_dir());
	set_entsize(spath("inner"), SHT_SYMTAB, 0x2000018);
	must_run("cd %s && xz -f inner && objcopy --add-section .gnu_debugdata=inner.xz data_s.so",
		 scratch_dir());
	fd = open(spath("data_s.so"), O_RDONLY);
	CHECK(fd >= 0);
	e = sym_elf_load(fd, "", spath("data_s.so"));
	close(fd);
	CHECK(e != NULL);
	if (e) {
		CHECK_INT(e->list.n, 0);
		sym_elf_free(e);	/* freed the table a second time */
	}
}

int
main(void)
{
	test_symtab_shorter_than_an_entry();
	return unit_report("test_sym_fuzzed");
}
