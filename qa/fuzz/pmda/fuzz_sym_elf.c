/*
 * fuzz_sym_elf.c - ELF files as the symbolizer reads them (sym_elf.c): the
 * input is one file, loaded both ways the PMDA loads files, from memory
 * (the [vdso] image) and from an fd (every mapped file, with the stripped
 * path that looks for debug files, .dynsym and MiniDebugInfo).  Debug files
 * are looked for under an empty root, so none is found and nothing outside
 * the input is read.
 */
#include <sys/stat.h>
#include "fuzz_sym.h"

static const char *empty_root;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	empty_root = fuzz_scratch();
	return 0;
}

static void
check_elf(struct sym_elf *e, size_t size)
{
	uint64_t vaddr;

	if (e == NULL)
		return;
	fuzz_check_list(&e->list, 64);
	for (int i = 0; i < e->nloads; i++)
		sym_elf_offset_to_vaddr(e, e->loads[i].offset, &vaddr);
	sym_elf_offset_to_vaddr(e, size / 2, &vaddr);
	sym_elf_account(e);
	sym_elf_free(e);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	path[32];
	int	fd;

	check_elf(sym_elf_load_mem((const char *)data, size), size);
	fd = fuzz_memfd(data, size, path);
	check_elf(sym_elf_load(fd, empty_root, "/opt/app/prog"), size);
	close(fd);
	return 0;
}
