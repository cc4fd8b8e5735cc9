/*
 * unwind_table.h - compile the call-frame information (CFI) of an x86-64
 * ELF file into a sorted table of compact unwind rows, for the BPF stack
 * walker.  The whole contract of pmda/unwind/; how it works: "Unwinding"
 * in docs/design.md.
 *
 * A row says, for the pcs from its pc up to the next row's pc, how to find
 * the caller: the CFA (canonical frame address) from RSP or RBP, the return
 * address always at CFA - 8, and the caller's RBP either saved at CFA +
 * rbp_offset or left unchanged.  PLT stubs, signal trampolines and the
 * outermost frame have their own types.  Rules a row cannot express give
 * an SP_CFA_NONE row (the walker falls back to frame pointers there) and
 * are counted by kind in the build statistics.
 *
 * Source: the file's .eh_frame; else the .debug_frame of a separate debug
 * file.  Read with elfutils' libdw.  Not thread-safe per table; building
 * different files from different threads is fine.
 */
#ifndef UNWIND_TABLE_H
#define UNWIND_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "stackprof.h"

/* One rule, valid from pc up to the next row's pc (link-time vaddr space
 * of the ELF file, i.e. the same space as p_vaddr / st_value).  Rows of
 * types other than SP_CFA_RSP, SP_CFA_RBP and SP_CFA_RBP_DEREF carry zero
 * offsets, except SP_CFA_PLT whose cfa_offset is its base, 8.  In an
 * SP_CFA_RBP_DEREF row rbp_offset is relative to RBP, not to the CFA, and
 * 0 is a slot like any other (see bpf/stackprof.h). */
struct unwind_row {
	uint64_t pc;
	int32_t  cfa_offset;	/* CFA = base register + cfa_offset */
	int16_t  rbp_offset;	/* caller's RBP saved at CFA + rbp_offset; 0 = RBP unchanged */
	uint8_t  cfa_type;	/* enum sp_cfa_type from bpf/stackprof.h */
};

struct unwind_table {
	struct unwind_row *rows;	/* sorted by pc, adjacent equal rules merged */
	size_t nrows;
};

/* Number of enum sp_cfa_type values (SP_CFA_RBP_DEREF is the last). */
#define UNWIND_CFA_TYPES	(SP_CFA_RBP_DEREF + 1)

/* Rules met in the CFI that no row can express; each such source row
 * becomes SP_CFA_NONE. */
enum unwind_unsupported {
	UNWIND_UNSUP_CFA_REGISTER = 0,	/* CFA based on a register other than RSP/RBP */
	UNWIND_UNSUP_CFA_EXPRESSION,	/* CFA by an expression other than the PLT's, or undefined */
	UNWIND_UNSUP_RBP_RULE,		/* RBP kept in a register, by expression, or as a value */
	UNWIND_UNSUP_RA_RULE,		/* return address elsewhere than CFA - 8 */
	UNWIND_UNSUP_RANGE,		/* offset beyond the row's field, or RBP at CFA + 0 */
	UNWIND_UNSUP_NR
};

enum unwind_source {
	UNWIND_SRC_NONE = 0,
	UNWIND_SRC_EH_FRAME,		/* the file's .eh_frame */
	UNWIND_SRC_DEBUG_FRAME,		/* .debug_frame of the separate debug file */
};

struct unwind_build_stats {
	size_t		rows;			/* rows in the table */
	size_t		type_rows[UNWIND_CFA_TYPES];	/* of which, by enum sp_cfa_type */
	size_t		source_rows;		/* rows libdw gave, before merging */
	size_t		fdes;			/* FDEs compiled */
	size_t		fde_errors;		/* malformed entries met: the build then fails */
	size_t		unsupported[UNWIND_UNSUP_NR];	/* source rows, by kind */
	uint64_t	interp_bytes;		/* CFI bytes handed to libdw's interpreter */
	enum unwind_source source;
	uint64_t	build_ns;		/* wall time of the build */
};

/* Compile the CFI of an open ELF file (fd) into t.  debug_fd (or -1) is a
 * separate debug file whose .debug_frame is used when fd has no .eh_frame.
 * Returns 0, or -1 with a one-line reason in err (t untouched).  st (may be
 * NULL) is filled in both cases as far as the build went.  Any malformed
 * entry fails the build (the file's table is dropped, never half-trusted);
 * so does a build over its work bound.  CFI without FDEs gives 0 rows. */
int unwind_table_build(int fd, int debug_fd, struct unwind_table *t,
		       struct unwind_build_stats *st, char *err, size_t errlen);
/* The same from an in-memory image (the vDSO, read from /proc/PID/mem). */
int unwind_table_build_mem(const void *image, size_t len, struct unwind_table *t,
			   struct unwind_build_stats *st, char *err, size_t errlen);
void unwind_table_free(struct unwind_table *t);
/* The row covering pc, or NULL before the first row (binary search; for
 * tests and user space).  Past the last FDE the covering row is NONE. */
const struct unwind_row *unwind_table_find(const struct unwind_table *t, uint64_t pc);

/*
 * The identity tables are shared by, as a string: "build-id:HEX" when the
 * file has a GNU build-id note, else "inode:DEV:INO:SIZE:MTIME" (a file
 * rewritten in place changes identity).  id must hold UNWIND_FILE_ID_LEN
 * bytes.  Returns 0, or -1 when it is shorter or fd cannot be stat'ed.  The
 * _mem variant (the vDSO) has only the build-id, and returns -1 without.
 */
#define UNWIND_FILE_ID_LEN	160
int unwind_file_id(int fd, char *id, size_t len);
int unwind_file_id_mem(const void *image, size_t len, char *id, size_t idlen);

#endif /* UNWIND_TABLE_H */
