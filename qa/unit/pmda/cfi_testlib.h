/*
 * cfi_testlib.h - what the CFI compiler's tests share: building a table
 * from a path, finding a section, reading a row's fields safely, and the
 * shape every table must have whatever the input was.
 */
#ifndef CFI_TESTLIB_H
#define CFI_TESTLIB_H

#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "unwind/unwind_table.h"

/* Build path's table (debug: a separate debug file, or NULL); reasons
 * for a refusal go to stderr when loud. */
static inline int
cfi_build_path(const char *path, const char *debug, struct unwind_table *t,
	       struct unwind_build_stats *st, bool loud)
{
	char err[256] = "";
	int fd = open(path, O_RDONLY), dfd = debug ? open(debug, O_RDONLY) : -1;
	int r = unwind_table_build(fd, dfd, t, st, err, sizeof(err));

	if (r != 0 && loud)
		fprintf(stderr, "%s: %s\n", path, err);
	close(fd);
	if (dfd >= 0)
		close(dfd);
	return r;
}

/* Address, file offset and size of section name in path; false if absent. */
static inline bool
cfi_section(const char *path, const char *name, uint64_t *addr, uint64_t *off, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr;
	const char *n;
	bool found = false;

	if (elf && elf_getshdrstrndx(elf, &shstr) == 0)
		while (!found && (scn = elf_nextscn(elf, scn)) != NULL)
			if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstr, sh.sh_name)) &&
			    strcmp(n, name) == 0) {
				*addr = sh.sh_addr;
				*off = sh.sh_offset;
				*size = sh.sh_size;
				found = true;
			}
	elf_end(elf);
	close(fd);
	return found;
}

/* Type and CFA offset of the row covering pc; -1 when none does. */
static inline int
cfi_type_at(const struct unwind_table *t, uint64_t pc)
{
	const struct unwind_row *r = unwind_table_find(t, pc);

	return r ? r->cfa_type : -1;
}

static inline int
cfi_offset_at(const struct unwind_table *t, uint64_t pc)
{
	const struct unwind_row *r = unwind_table_find(t, pc);

	return r ? r->cfa_offset : -1;
}

static inline bool
cfi_same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->cfa_type == b->cfa_type && a->cfa_offset == b->cfa_offset &&
	       a->rbp_offset == b->rbp_offset;
}

/* Whatever the input: pcs strictly rising, known types, offsets only where
 * the type has them, neighbours merged, a NONE row last. */
static inline bool
cfi_table_sane(const struct unwind_table *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		const struct unwind_row *r = &t->rows[i];
		bool offsets = r->cfa_type == SP_CFA_RSP || r->cfa_type == SP_CFA_RBP ||
			       r->cfa_type == SP_CFA_RBP_DEREF;

		if (r->cfa_type >= UNWIND_CFA_TYPES ||
		    (i > 0 && (r->pc <= r[-1].pc || cfi_same_rule(r, &r[-1]))) ||
		    (!offsets && r->rbp_offset != 0) ||
		    (!offsets && r->cfa_offset != (r->cfa_type == SP_CFA_PLT ? 8 : 0)))
			return false;
	}
	return t->nrows == 0 || t->rows[t->nrows - 1].cfa_type == SP_CFA_NONE;
}

/* Our own vDSO and its length (from /proc/self/maps); NULL if none. */
static inline const void *
cfi_vdso(size_t *len)
{
	const void *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long lo, hi;

	*len = 0;
	while (maps && fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			*len = hi - lo;
	if (maps)
		fclose(maps);
	return *len ? vdso : NULL;
}

#endif /* CFI_TESTLIB_H */
