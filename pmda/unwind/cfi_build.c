/*
 * cfi_build.c - ELF in, unwind table out.
 *
 * Picks the CFI (the file's .eh_frame, else the debug file's .debug_frame),
 * lists its FDEs (cfi_fdes.c), then walks each FDE row by row: libdw's
 * dwarf_cfi_addrframe(pc) gives the rule at pc and the end of its row,
 * which is the next pc to ask.  Gaps between FDEs get an SP_CFA_NONE row,
 * and so does the end of the last one.
 *
 * libdw interprets an FDE from its first instruction for every row asked:
 * quadratic in an FDE's rows, 12x the linear cost on libLLVM-15 and 290x on
 * liblapack (Fortran, FDEs of 1,800 rows), yet 0.1-0.2 s for either.  A
 * hostile FDE of a million rows would take hours, so the bytes handed to
 * the interpreter are bounded.
 */
#include <dwarf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cfi_internal.h"
#include "lib/clock.h"

/*
 * Bound on the CFI bytes libdw may interpret for one file (~1.4 s here).
 * The most any of the 1,891 x86-64 ELF files on the build machine needs is
 * 225 MB (gcc's cc1plus; lto-dump has an FDE of 6,678 rows); liblapack
 * needs 290 bytes per byte of .eh_frame, so no per-byte bound would do.
 */
#define INTERP_MAX		(2ull << 30)

/*
 * Bound on a table's rows, checked as they grow: the walker searches fewer
 * (SP_UNWIND_MAX_TABLE_ROWS, 16 Mi rows: 256 MiB of rows here), and
 * without it a hostile .eh_frame of many one-row FDEs could grow rows
 * until INTERP_MAX, about 2 GB.  The largest table on the build machine
 * has 979k rows (libLLVM).
 */
#define ROWS_MAX		SP_UNWIND_MAX_TABLE_ROWS

struct cfi_input {
	Elf		*debug_elf;
	Dwarf		*dwarf;		/* of debug_elf, for .debug_frame */
	Dwarf_CFI	*cfi;
	bool		own_cfi;	/* from dwarf_getcfi_elf: ours to end */
	struct cfi_section sec;
};

static bool
is_x86_64(Elf *elf)
{
	GElf_Ehdr eh;

	return elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) != NULL &&
	       eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == ELFDATA2LSB &&
	       eh.e_machine == EM_X86_64;
}

/* Section named name (not NOBITS, not empty); hdr/hdr_sh get .eh_frame_hdr
 * when it comes before it, as libdw only looks there. */
static Elf_Scn *
find_section(Elf *elf, const char *name, GElf_Shdr *sh, Elf_Scn **hdr, GElf_Shdr *hdr_sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	const char *n;

	if (hdr)
		*hdr = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, sh) == NULL ||
		    (n = elf_strptr(elf, shstrndx, sh->sh_name)) == NULL)
			continue;
		if (hdr && strcmp(n, ".eh_frame_hdr") == 0) {
			*hdr = scn;
			*hdr_sh = *sh;
		} else if (strcmp(n, name) == 0) {
			return sh->sh_type == SHT_NOBITS || sh->sh_size == 0 ? NULL : scn;
		}
	}
	return NULL;
}

static int
open_eh_frame(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, Elf_Scn *hdr,
	      const GElf_Shdr *hdr_sh, struct cfi_input *in, char *err, size_t errlen)
{
	in->sec.data = elf_rawdata(scn, NULL);
	if (in->sec.data == NULL || in->sec.data->d_buf == NULL ||
	    in->sec.data->d_size != sh->sh_size) {
		snprintf(err, errlen, "cannot read .eh_frame: %s", elf_errmsg(-1));
		return -1;
	}
	if ((in->cfi = dwarf_getcfi_elf(elf)) == NULL) {
		snprintf(err, errlen, "libdw refuses .eh_frame: %s", dwarf_errmsg(-1));
		return -1;
	}
	in->own_cfi = true;
	in->sec.ident = (const unsigned char *)elf_getident(elf, NULL);
	in->sec.vaddr = sh->sh_addr;
	in->sec.eh = true;
	if (hdr && (in->sec.hdr = elf_rawdata(hdr, NULL)) != NULL && in->sec.hdr->d_buf)
		in->sec.hdr_vaddr = hdr_sh->sh_addr;
	else
		in->sec.hdr = NULL;
	return 0;
}

static int
open_debug_frame(int debug_fd, struct cfi_input *in, char *err, size_t errlen)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	in->debug_elf = elf_begin(debug_fd, ELF_C_READ, NULL);
	if (in->debug_elf == NULL || !is_x86_64(in->debug_elf)) {
		snprintf(err, errlen, "no .eh_frame, and the debug file is not x86-64 ELF");
		return -1;
	}
	/* libdw decompresses .debug_frame in place, so open it first */
	in->dwarf = dwarf_begin_elf(in->debug_elf, DWARF_C_READ, NULL);
	in->cfi = in->dwarf ? dwarf_getcfi(in->dwarf) : NULL;
	scn = find_section(in->debug_elf, ".debug_frame", &sh, NULL, NULL);
	if (in->cfi == NULL || scn == NULL) {
		snprintf(err, errlen, "no .eh_frame, and no .debug_frame in the debug file");
		return -1;
	}
	in->sec.data = elf_getdata(scn, NULL);
	if (in->sec.data == NULL || in->sec.data->d_buf == NULL) {
		snprintf(err, errlen, "cannot read .debug_frame: %s", elf_errmsg(-1));
		return -1;
	}
	in->sec.ident = (const unsigned char *)elf_getident(in->debug_elf, NULL);
	in->sec.eh = false;
	return 0;
}

static void
close_input(struct cfi_input *in)
{
	if (in->own_cfi)
		dwarf_cfi_end(in->cfi);
	if (in->dwarf)
		dwarf_end(in->dwarf);
	if (in->debug_elf)
		elf_end(in->debug_elf);
}

static int
open_input(Elf *elf, int debug_fd, struct cfi_input *in, struct unwind_build_stats *st,
	   char *err, size_t errlen)
{
	GElf_Shdr sh, hdr_sh;
	Elf_Scn *scn, *hdr;
	GElf_Ehdr eh;
	size_t shstrndx, nsec;

	memset(in, 0, sizeof(*in));
	if (!is_x86_64(elf)) {
		snprintf(err, errlen, "not an x86-64 ELF file");
		return -1;
	}
	/* libelf reports no sections when their headers lie past the end */
	if (elf_getshdrstrndx(elf, &shstrndx) != 0 || elf_getshdrnum(elf, &nsec) != 0 ||
	    (nsec == 0 && gelf_getehdr(elf, &eh) && eh.e_shoff != 0)) {
		snprintf(err, errlen, "cannot read the section headers (truncated file?)");
		return -1;
	}
	if ((scn = find_section(elf, ".eh_frame", &sh, &hdr, &hdr_sh)) != NULL) {
		st->source = UNWIND_SRC_EH_FRAME;
		return open_eh_frame(elf, scn, &sh, hdr, &hdr_sh, in, err, errlen);
	}
	if (debug_fd >= 0) {
		st->source = UNWIND_SRC_DEBUG_FRAME;
		return open_debug_frame(debug_fd, in, err, errlen);
	}
	snprintf(err, errlen, "no .eh_frame and no debug file");
	return -1;
}

/* What one walk needs besides the FDE. */
struct walk {
	Dwarf_CFI	*cfi;
	struct unwind_builder b;
	struct unwind_build_stats *st;
	uint64_t	interp_max;
	size_t		rows_max;
};

static bool
too_many_rows(const struct walk *w, char *err, size_t errlen)
{
	if (w->b.t.nrows < w->rows_max)	/* at 2^24 the rows fill 2^24 of room: no more */
		return false;
	snprintf(err, errlen, "table too large (%zu rows or more)", w->rows_max);
	return true;
}

/* Rows of f from its start up to limit.  Returns 0, or -1 with err set
 * when libdw fails on it, or memory or the work bound runs out. */
static int
walk_fde(struct walk *w, const struct cfi_fde *f, uint64_t limit, char *err, size_t errlen)
{
	uint64_t pc = f->start;
	Dwarf_Frame *frame;
	Dwarf_Addr end;

	while (pc < limit) {
		struct unwind_row row = { .pc = pc };

		if (dwarf_cfi_addrframe(w->cfi, pc, &frame) != 0) {
			w->st->fde_errors++;
			snprintf(err, errlen, "libdw cannot interpret the FDE at %#llx (pc %#llx): %s",
				 (unsigned long long)f->start, (unsigned long long)pc,
				 dwarf_errmsg(-1));
			return -1;
		}
		w->st->interp_bytes += f->entry_len;
		dwarf_frame_info(frame, NULL, &end, NULL);
		cfi_rule_row(frame, &row, w->st);
		free(frame);
		w->st->source_rows++;
		if (end <= pc) {
			w->st->fde_errors++;
			snprintf(err, errlen, "the FDE at %#llx has an empty row at %#llx",
				 (unsigned long long)f->start, (unsigned long long)pc);
			return -1;
		}
		if (!unwind_builder_add(&w->b, &row)) {
			snprintf(err, errlen, "out of memory at %zu rows", w->b.t.nrows);
			return -1;
		}
		if (too_many_rows(w, err, errlen))
			return -1;
		if (w->st->interp_bytes > w->interp_max) {
			snprintf(err, errlen, "CFI too costly to interpret (over %llu bytes)",
				 (unsigned long long)w->interp_max);
			return -1;
		}
		pc = end < limit ? end : limit;
	}
	return 0;
}

static bool
add_none(struct walk *w, uint64_t pc)
{
	struct unwind_row row = { .pc = pc, .cfa_type = SP_CFA_NONE };

	return unwind_builder_add(&w->b, &row);
}

/* Every FDE in pc order; an FDE overlapping the next ends where it
 * starts; a NONE row wherever no FDE is, the end included. */
static int
walk_all(struct walk *w, const struct cfi_fde_list *l, char *err, size_t errlen)
{
	uint64_t covered = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct cfi_fde *f = &l->v[i];
		uint64_t limit = f->end;

		if (i + 1 < l->n && l->v[i + 1].start < limit)
			limit = l->v[i + 1].start;
		if (limit <= f->start)
			continue;
		if (w->b.t.nrows && covered < f->start && !add_none(w, covered))
			goto nomem;
		if (walk_fde(w, f, limit, err, errlen) != 0)
			return -1;
		covered = limit;
		w->st->fdes++;
	}
	if (w->b.t.nrows == 0)
		return 0;	/* no FDE at all (data-only libraries): empty table */
	if (add_none(w, covered))
		return too_many_rows(w, err, errlen) ? -1 : 0;
nomem:
	snprintf(err, errlen, "out of memory at %zu rows", w->b.t.nrows);
	return -1;
}

static int
build(Elf *elf, int debug_fd, size_t rows_max, struct unwind_table *t,
      struct unwind_build_stats *st, char *err, size_t errlen)
{
	struct unwind_build_stats local;
	struct cfi_input in;
	struct cfi_fde_list l = { 0 };
	struct walk w = { 0 };
	uint64_t t0 = clock_mono_ns();
	int r = -1;

	if (st == NULL)
		st = &local;
	memset(st, 0, sizeof(*st));
	if (elf == NULL) {
		snprintf(err, errlen, "not an ELF file: %s", elf_errmsg(-1));
		return -1;
	}
	if (open_input(elf, debug_fd, &in, st, err, errlen) == 0 &&
	    cfi_fdes_list(&in.sec, &l, err, errlen) == 0) {
		w.cfi = in.cfi;
		w.st = st;
		w.interp_max = INTERP_MAX;
		w.rows_max = rows_max;
		r = walk_all(&w, &l, err, errlen);
	}
	st->fde_errors += l.errors;
	cfi_fdes_free(&l);
	close_input(&in);
	if (r == 0) {
		unwind_builder_trim(&w.b);
		*t = w.b.t;
		st->rows = t->nrows;
		for (size_t i = 0; i < t->nrows; i++)
			st->type_rows[t->rows[i].cfa_type]++;
	} else {
		unwind_table_free(&w.b.t);
	}
	st->build_ns = clock_mono_ns() - t0;
	return r;
}

int
cfi_build_rows_max(int fd, size_t rows_max, struct unwind_table *t,
		   struct unwind_build_stats *st, char *err, size_t errlen)
{
	Elf *elf;
	int r;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	r = build(elf, -1, rows_max, t, st, err, errlen);
	if (elf)
		elf_end(elf);
	return r;
}

int
unwind_table_build(int fd, int debug_fd, struct unwind_table *t,
		   struct unwind_build_stats *st, char *err, size_t errlen)
{
	Elf *elf;
	int r;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	r = build(elf, debug_fd, ROWS_MAX, t, st, err, errlen);
	if (elf)
		elf_end(elf);
	return r;
}

int
unwind_table_build_mem(const void *image, size_t len, struct unwind_table *t,
		       struct unwind_build_stats *st, char *err, size_t errlen)
{
	/* libelf wants a writable image; a copy also outlives the caller's buffer */
	char *copy = malloc(len ? len : 1);
	Elf *elf;
	int r;

	if (copy == NULL) {
		snprintf(err, errlen, "out of memory copying a %zu-byte image", len);
		return -1;
	}
	memcpy(copy, image, len);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, len);
	r = build(elf, -1, ROWS_MAX, t, st, err, errlen);
	if (elf)
		elf_end(elf);
	free(copy);
	return r;
}
