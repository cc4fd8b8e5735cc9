/*
 * cfi_internal.h - the files of pmda/unwind/ talk to each other through
 * this header; outside the folder only its unit test includes it.
 *
 *   cfi_encoded.c   DW_EH_PE pointer encodings, every read bounds-checked
 *   cfi_fdes.c      the FDE list: .eh_frame_hdr's table, else a scan
 *   cfi_check.c     vetting instruction streams before libdw runs them
 *   cfi_rule.c      one libdw frame state -> one row
 *   cfi_build.c     ELF in, table out: source choice, the walk, its bounds
 *   unwind_table.c  appending rows with merging, lookup, free
 */
#ifndef CFI_INTERNAL_H
#define CFI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include "unwind_table.h"

/* Bytes of a section and the address its first byte has (for pcrel). */
struct cfi_bytes {
	const uint8_t	*buf;
	size_t		size;
	uint64_t	vaddr;
};

/*
 * Read the pointer encoded as enc (DW_EH_PE_*) at b->buf[*pos] and advance
 * *pos.  datarel is the base of DW_EH_PE_datarel.  The indirect bit is
 * ignored (the caller decides whether it may appear; we never dereference).
 * false, *pos unchanged, when enc is omit, aligned, textrel or funcrel, or
 * the value runs past b->size.
 */
bool cfi_read_encoded(const struct cfi_bytes *b, uint8_t enc, uint64_t datarel,
		      size_t *pos, uint64_t *out);

/* Whether the CFA program p[0..n) is one libdw may safely run: known
 * opcodes, operands inside it, registers and remember_state nesting
 * bounded.  fde_enc is the encoding of DW_CFA_set_loc's operand. */
bool cfi_check_program(const uint8_t *p, size_t n, uint8_t fde_enc);

/* A CFI section as both libdw and we read it. */
struct cfi_section {
	const unsigned char *ident;	/* e_ident of the ELF holding it */
	Elf_Data	*data;		/* .eh_frame or .debug_frame */
	uint64_t	vaddr;		/* sh_addr: .eh_frame's pcrel base */
	bool		eh;		/* .eh_frame format (else .debug_frame) */
	Elf_Data	*hdr;		/* .eh_frame_hdr libdw will search, or NULL */
	uint64_t	hdr_vaddr;
};

/* One FDE's pc range and the size of its entry (what libdw re-reads each
 * time it interprets a row of it). */
struct cfi_fde {
	uint64_t	start, end;
	uint32_t	entry_len;
};

struct cfi_fde_list {
	struct cfi_fde	*v;		/* sorted by start, no empty ranges */
	size_t		n;
	size_t		errors;		/* malformed entries met (the list then fails) */
};

/*
 * List the FDEs of sec: from .eh_frame_hdr's search table when libdw uses
 * one (each entry checked against the FDE it points to), else by scanning
 * the entries; every listed FDE's program and its CIE's are vetted.
 * Returns 0, or -1 with a reason in err at the first malformed entry (or
 * when memory runs out).
 */
int cfi_fdes_list(const struct cfi_section *sec, struct cfi_fde_list *list,
		  char *err, size_t errlen);
void cfi_fdes_free(struct cfi_fde_list *list);

/* The row (pc not set) for libdw's frame state f; counts what it cannot
 * express in st->unsupported. */
void cfi_rule_row(Dwarf_Frame *f, struct unwind_row *row, struct unwind_build_stats *st);

/* A table being built: rows plus room. */
struct unwind_builder {
	struct unwind_table t;
	size_t		cap;
};

/* Append row unless its rule equals the last row's; a row at the last
 * row's pc replaces it.  false when memory runs out. */
bool unwind_builder_add(struct unwind_builder *b, const struct unwind_row *row);
/* Give back the room beyond the last row (up to half the table). */
void unwind_builder_trim(struct unwind_builder *b);

/* unwind_table_build(fd, -1, ...) with another bound on the table's rows
 * (tests: a hostile file past the real bound would take hundreds of MB). */
int cfi_build_rows_max(int fd, size_t rows_max, struct unwind_table *t,
		       struct unwind_build_stats *st, char *err, size_t errlen);

#endif /* CFI_INTERNAL_H */
