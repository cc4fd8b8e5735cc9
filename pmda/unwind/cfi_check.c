/*
 * cfi_check.c - vet a CIE's or FDE's instruction stream before libdw runs it.
 *
 * libdw grows its register array to the largest register number an
 * instruction names and copies that array for every row asked, and it
 * mallocs a state per DW_CFA_remember_state.  Measured: one
 * DW_CFA_undefined naming register 100,000,000 in a CIE made a 6-FDE
 * program's build take 7.5 s and 1.5 GB.  So every instruction is decoded
 * here first: known opcode, operands inside the entry, register numbers
 * and remember_state nesting within what x86-64 code uses.
 */
#include <dwarf.h>
#include "cfi_internal.h"

/* x86-64 DWARF registers end at 125 (AVX-512 k7); GCC nests one level. */
#define CFI_REG_MAX		127
#define CFI_REMEMBER_MAX	64

struct cursor {
	struct cfi_bytes b;
	size_t		pos;
};

static bool
skip(struct cursor *c, uint64_t n)
{
	if (n > c->b.size - c->pos)
		return false;
	c->pos += n;
	return true;
}

static bool
leb(struct cursor *c, uint64_t *v)
{
	return cfi_read_encoded(&c->b, DW_EH_PE_uleb128, 0, &c->pos, v);
}

static bool
reg(struct cursor *c)
{
	uint64_t r;

	return leb(c, &r) && r <= CFI_REG_MAX;
}

/* DW_FORM_block: a length, then that many bytes. */
static bool
block(struct cursor *c)
{
	uint64_t n;

	return leb(c, &n) && skip(c, n);
}

/* Operands of the extended (low-numbered) opcode op; false when unknown
 * or malformed. */
static bool
operands(struct cursor *c, uint8_t op, uint8_t fde_enc, int *depth)
{
	uint64_t v;

	switch (op) {
	case DW_CFA_nop:
	case DW_CFA_remember_state:
		return op == DW_CFA_nop || ++*depth <= CFI_REMEMBER_MAX;
	case DW_CFA_restore_state:
		return --*depth >= 0;
	case DW_CFA_set_loc:
		return cfi_read_encoded(&c->b, fde_enc, 0, &c->pos, &v);
	case DW_CFA_advance_loc1:
		return skip(c, 1);
	case DW_CFA_advance_loc2:
		return skip(c, 2);
	case DW_CFA_advance_loc4:
		return skip(c, 4);
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
	case DW_CFA_GNU_args_size:
		return leb(c, &v);
	case DW_CFA_restore_extended:
	case DW_CFA_undefined:
	case DW_CFA_same_value:
	case DW_CFA_def_cfa_register:
		return reg(c);
	case DW_CFA_offset_extended:
	case DW_CFA_def_cfa:
	case DW_CFA_offset_extended_sf:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_val_offset:
	case DW_CFA_val_offset_sf:
	case DW_CFA_GNU_negative_offset_extended:
		return reg(c) && leb(c, &v);
	case DW_CFA_register:
		return reg(c) && reg(c);
	case DW_CFA_def_cfa_expression:
		return block(c);
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		return reg(c) && block(c);
	default:
		return false;
	}
}

bool
cfi_check_program(const uint8_t *p, size_t n, uint8_t fde_enc)
{
	struct cursor c = { { p, n, 0 }, 0 };
	uint64_t v;
	int depth = 0;

	while (c.pos < n) {
		uint8_t op = p[c.pos++];

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
		case DW_CFA_restore:	/* register in the low 6 bits */
			break;
		case DW_CFA_offset:
			if (!leb(&c, &v))
				return false;
			break;
		default:
			if (!operands(&c, op, fde_enc, &depth))
				return false;
		}
	}
	return true;
}
