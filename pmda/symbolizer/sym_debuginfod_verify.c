/*
 * sym_debuginfod_verify.c - a file a server sent is used only if it proves
 * it belongs to the binary: an ELF file no larger than the cap, carrying
 * the build-id we asked for, with function symbols.  Anything else (an
 * error page, another binary, garbage, a huge answer) is refused, so a
 * wrong server can cost us names but never give us wrong ones.
 */
#include <string.h>
#include <sys/stat.h>
#include "sym_debuginfod_priv.h"

struct sym_elf *
dfd_verify(int fd, const uint8_t *id, int idlen, uint64_t max_bytes)
{
	struct sym_src src = { .fd = fd };
	struct sym_elf_info info;
	struct sym_elf *e;
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max_bytes)
		return NULL;
	if ((e = sym_elf_empty()) == NULL)
		return NULL;
	src.size = st.st_size;
	/* symbols land in a table of its own, thrown away unless the id matches */
	if (sym_elf_parse(e, &src, &info, SYM_PICK_SYMTAB, false) <= 0 ||
	    info.build_id_len != idlen || memcmp(info.build_id, id, idlen) != 0) {
		sym_elf_free(e);
		return NULL;
	}
	e->source = SYM_SRC_DEBUGINFOD;
	sym_list_sort(&e->list);
	sym_elf_account(e);
	return e;
}
