/*
 * sym_file.c - the symbols of one mapped file, from the best source it
 * has: its own .symtab; else a separate debug file (sym_debug.c); else its
 * .dynsym with its MiniDebugInfo.  sym_elf.c reads each of them; this file
 * picks, so that the ELF reader needs nothing of the debug-file lookup
 * that uses it.
 */
#include <string.h>
#include <sys/stat.h>
#include "sym_internal.h"

struct sym_elf *
sym_elf_load(int fd, const char *root, const char *path)
{
	struct sym_elf *e = sym_elf_empty();	/* accounted again once filled */
	struct sym_elf_info info;
	struct stat st;
	struct sym_src src = { .fd = fd };

	if (e == NULL || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		goto fail;
	src.size = st.st_size;
	/* no loadable segment: truncated, or nothing a process could map */
	if (sym_elf_parse(e, &src, &info, SYM_PICK_SYMTAB, true) < 0 || e->nloads == 0)
		goto fail;
	memcpy(e->build_id, info.build_id, info.build_id_len);	/* for debuginfod */
	e->build_id_len = info.build_id_len;
	if (info.has_symtab && e->refused == 0) {
		e->source = SYM_SRC_SYMTAB;
	} else if ((e->source = sym_debug_find_file(e, &info, root, path)) == SYM_SRC_NONE) {
		/* stripped, no debug file: .dynsym plus MiniDebugInfo if any */
		struct sym_elf_info dyn;
		if (sym_elf_parse(e, &src, &dyn, SYM_PICK_DYNSYM, false) > 0)
			e->source = SYM_SRC_DYNSYM;
		if (sym_debug_minidebug(e, &src, &info) > 0)
			e->source = SYM_SRC_MINIDEBUG;
	}
	sym_list_sort(&e->list);
	sym_elf_account(e);
	return e;
fail:
	if (e != NULL && e->refused > 0) {
		/* over a bound: an empty table that says so, not an error */
		struct sym_elf *empty = sym_elf_empty();

		if (empty != NULL)
			empty->refused = e->refused;
		sym_elf_free(e);
		return empty;
	}
	sym_elf_free(e);
	return NULL;
}
