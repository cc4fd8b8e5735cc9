/*
 * cfi_fdes.c - the list of FDEs of a CFI section: their pc ranges, sorted,
 * every entry vetted before libdw interprets any of it.
 *
 * libdw answers "the rule at this pc" but not "which FDEs exist"; the walk
 * needs both ends of every FDE to step through its rows and to see the gaps.
 * Where libdw searches .eh_frame_hdr's table we enumerate that same table,
 * so both agree on which FDE covers a pc; each entry is checked against the
 * FDE it points to.  Otherwise every entry of the section is scanned with
 * dwarf_next_cfi, as libdw's own lookup then does.  An FDE's start and
 * length are encoded as its CIE's augmentation says ('R'), read here.
 *
 * Any malformed entry fails the whole list: a damaged file loses its table
 * rather than keep rows whose neighbours we know to be wrong.
 */
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfi_internal.h"
#include "lib/array.h"

/* What an FDE needs from its CIE; one is remembered, as most FDEs share it. */
struct cie_info {
	Dwarf_Off	off;
	uint8_t		enc;		/* FDE pointer encoding ('R') */
	bool		sized;		/* 'z': FDEs carry sized augmentation data */
	bool		known;
};

/* The FDE pointer encoding in a CIE's augmentation data ("zR", "zPLR"...). */
static bool
cie_augmentation(const char *a, const struct cfi_bytes *aug, uint8_t *enc)
{
	size_t pos = 0;
	uint64_t skip;

	for (; *a; a++) {
		switch (*a) {
		case 'R':
		case 'L':
		case 'P':
			if (pos >= aug->size)
				return false;
			pos++;
			if (*a == 'R')
				*enc = aug->buf[pos - 1];
			else if (*a == 'P' &&	/* the personality routine's pointer */
				 !cfi_read_encoded(aug, aug->buf[pos - 1], 0, &pos, &skip))
				return false;
			break;
		case 'S':
		case 'B':
			break;
		default:		/* its data's size is unknown */
			return false;
		}
	}
	return !(*enc & DW_EH_PE_indirect);
}

/* Read the CIE at off: its FDE encoding, and vet its initial program. */
static bool
read_cie(const struct cfi_section *sec, Dwarf_Off off, struct cie_info *ci)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	struct cfi_bytes aug;
	const char *a;

	if (dwarf_next_cfi(sec->ident, sec->data, sec->eh, off, &next, &e) != 0 ||
	    !dwarf_cfi_cie_p(&e))
		return false;
	*ci = (struct cie_info){ .off = off, .enc = DW_EH_PE_absptr };
	a = e.cie.augmentation;
	ci->sized = a[0] == 'z';
	aug = (struct cfi_bytes){ e.cie.augmentation_data, e.cie.augmentation_data_size, 0 };
	if (ci->sized && !cie_augmentation(a + 1, &aug, &ci->enc))
		return false;
	if (!ci->sized && a[strspn(a, "S")] != '\0')	/* unsized data we cannot skip */
		return false;
	ci->known = cfi_check_program(e.cie.initial_instructions,
				      e.cie.initial_instructions_end - e.cie.initial_instructions,
				      ci->enc);
	return ci->known;
}

/* Range of the FDE entry fde, its program vetted; false when malformed. */
static bool
read_fde(const struct cfi_section *sec, const Dwarf_FDE *fde, struct cie_info *ci,
	 struct cfi_fde *out)
{
	struct cfi_bytes b = { sec->data->d_buf, fde->end - (const uint8_t *)sec->data->d_buf,
			       sec->vaddr };
	size_t pos = fde->start - b.buf;
	uint64_t start, len, auglen = 0;

	if ((!ci->known || ci->off != fde->CIE_pointer) && !read_cie(sec, fde->CIE_pointer, ci))
		return false;
	if (!cfi_read_encoded(&b, ci->enc, 0, &pos, &start) ||
	    !cfi_read_encoded(&b, ci->enc & 0x0f, 0, &pos, &len) ||
	    start + len < start || fde->end - fde->start > UINT32_MAX ||
	    (ci->sized && !cfi_read_encoded(&b, DW_EH_PE_uleb128, 0, &pos, &auglen)) ||
	    auglen > b.size - pos ||
	    !cfi_check_program(b.buf + pos + auglen, b.size - pos - auglen, ci->enc))
		return false;
	*out = (struct cfi_fde){ start, start + len, (uint32_t)(fde->end - fde->start) };
	return true;
}

static bool
list_push(struct cfi_fde_list *l, size_t *cap, const struct cfi_fde *f)
{
	if (f->end == f->start)		/* covers nothing; libdw ignores it too */
		return true;
	if (array_reserve(&l->v, cap, l->n + 1) < 0)
		return false;
	l->v[l->n++] = *f;
	return true;
}

/* The search table of .eh_frame_hdr, as libdw parses it; false when libdw
 * would not use it either (then it scans, and so do we). */
static bool
hdr_table(const struct cfi_section *sec, struct cfi_bytes *hb, size_t *pos,
	  uint8_t *enc, uint64_t *count)
{
	uint64_t eh_ptr;

	*hb = (struct cfi_bytes){ sec->hdr->d_buf, sec->hdr->d_size, sec->hdr_vaddr };
	*pos = 4;
	if (hb->size < 4 || hb->buf[0] != 1 || hb->buf[3] == DW_EH_PE_omit ||
	    (hb->buf[3] & 0x07) == DW_EH_PE_uleb128 ||
	    !cfi_read_encoded(hb, hb->buf[1], sec->hdr_vaddr, pos, &eh_ptr) ||
	    eh_ptr != sec->vaddr ||
	    !cfi_read_encoded(hb, hb->buf[2], sec->hdr_vaddr, pos, count) || *count == 0)
		return false;
	*enc = hb->buf[3];
	return true;
}

/* Returns 1 when there is no table libdw would use, else 0 or -1. */
static int
list_from_hdr(const struct cfi_section *sec, struct cfi_fde_list *l, size_t *cap,
	      char *err, size_t errlen)
{
	struct cie_info ci = { 0 };
	struct cfi_bytes hb;
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	struct cfi_fde f;
	size_t pos;
	uint8_t enc;
	uint64_t count, loc, addr, off;

	if (!hdr_table(sec, &hb, &pos, &enc, &count))
		return 1;
	for (uint64_t i = 0; i < count; i++) {
		if (!cfi_read_encoded(&hb, enc, sec->hdr_vaddr, &pos, &loc) ||
		    !cfi_read_encoded(&hb, enc, sec->hdr_vaddr, &pos, &addr)) {
			snprintf(err, errlen, ".eh_frame_hdr table ends at entry %llu of %llu",
				 (unsigned long long)i, (unsigned long long)count);
			return -1;
		}
		off = addr - sec->vaddr;
		if (off >= sec->data->d_size ||
		    dwarf_next_cfi(sec->ident, sec->data, true, off, &next, &e) != 0 ||
		    dwarf_cfi_cie_p(&e) || !read_fde(sec, &e.fde, &ci, &f) || f.start != loc) {
			l->errors++;
			snprintf(err, errlen, ".eh_frame_hdr entry %llu (pc %#llx): no valid FDE at %#llx",
				 (unsigned long long)i, (unsigned long long)loc,
				 (unsigned long long)addr);
			return -1;
		}
		if (!list_push(l, cap, &f)) {
			snprintf(err, errlen, "out of memory listing FDEs");
			return -1;
		}
	}
	return 0;
}

static int
list_by_scan(const struct cfi_section *sec, struct cfi_fde_list *l, size_t *cap,
	     char *err, size_t errlen)
{
	struct cie_info ci = { 0 };
	Dwarf_CFI_Entry e;
	Dwarf_Off off = 0, next;
	struct cfi_fde f;
	int r;

	while ((r = dwarf_next_cfi(sec->ident, sec->data, sec->eh, off, &next, &e)) <= 0) {
		if (r < 0 || (!dwarf_cfi_cie_p(&e) && !read_fde(sec, &e.fde, &ci, &f))) {
			l->errors++;
			snprintf(err, errlen, "malformed CFI entry at offset %#llx",
				 (unsigned long long)off);
			return -1;
		}
		if (!dwarf_cfi_cie_p(&e) && !list_push(l, cap, &f)) {
			snprintf(err, errlen, "out of memory listing FDEs");
			return -1;
		}
		off = next;
	}
	return 0;
}

static int
fde_cmp(const void *a, const void *b)
{
	const struct cfi_fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

int
cfi_fdes_list(const struct cfi_section *sec, struct cfi_fde_list *list,
	      char *err, size_t errlen)
{
	size_t cap = 0;
	int r = 1;

	memset(list, 0, sizeof(*list));
	if (sec->hdr)
		r = list_from_hdr(sec, list, &cap, err, errlen);
	if (r > 0)
		r = list_by_scan(sec, list, &cap, err, errlen);
	if (r < 0) {
		size_t errors = list->errors;

		cfi_fdes_free(list);
		list->errors = errors;
		return -1;
	}
	if (list->n > 1)	/* no FDE: v is NULL, which qsort may not be given */
		qsort(list->v, list->n, sizeof(*list->v), fde_cmp);
	return 0;
}

void
cfi_fdes_free(struct cfi_fde_list *list)
{
	free(list->v);
	memset(list, 0, sizeof(*list));
}
