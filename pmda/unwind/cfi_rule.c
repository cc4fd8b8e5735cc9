/*
 * cfi_rule.c - turn libdw's frame state at one pc into one unwind row.
 *
 * libdw hands rules back as small DWARF expressions: the CFA as
 * DW_OP_bregx (reg, offset) for DW_CFA_def_cfa*, a register saved at CFA+N
 * as DW_OP_call_frame_cfa; DW_OP_plus_uconst N, "same value" as no
 * operations and no array, "undefined" as no operations in our array.
 * Two CFA expressions have rows of their own: the PLT's and GCC's stack
 * realignment (DRAP).  Anything else is a rule a row cannot hold: the row
 * becomes SP_CFA_NONE and the kind is counted.
 */
#include <dwarf.h>
#include <string.h>
#include "cfi_internal.h"

#define DWARF_REG_RBP	6
#define DWARF_REG_RSP	7
#define DWARF_REG_RA	16

/* The PLT's CFA: rsp + 8 + ((rip & 15) >= 11) * 8, as ld writes it. */
static bool
is_plt_expression(const Dwarf_Op *ops, size_t n)
{
	static const struct { uint8_t atom; Dwarf_Word number; } plt[] = {
		{ DW_OP_breg0 + DWARF_REG_RSP, 8 }, { DW_OP_breg0 + DWARF_REG_RA, 0 },
		{ DW_OP_lit15, 0 }, { DW_OP_and, 0 }, { DW_OP_lit11, 0 }, { DW_OP_ge, 0 },
		{ DW_OP_lit3, 0 }, { DW_OP_shl, 0 }, { DW_OP_plus, 0 },
	};

	if (n != sizeof(plt) / sizeof(plt[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom != plt[i].atom || ops[i].number != plt[i].number)
			return false;
	return true;
}

/* GCC's stack realignment (DRAP) once RBP is set up: the CFA was pushed
 * below RBP, "DW_OP_breg6 N; DW_OP_deref". */
static bool
is_drap_expression(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n != 2 || ops[0].atom != DW_OP_breg0 + DWARF_REG_RBP || ops[1].atom != DW_OP_deref)
		return false;
	*off = (int64_t)ops[0].number;
	return true;
}

/* CFA = register + offset, when that is what the rule is. */
static bool
cfa_register(const Dwarf_Op *ops, size_t n, unsigned *reg, int64_t *off)
{
	if (n != 1)
		return false;
	if (ops[0].atom == DW_OP_bregx) {
		*reg = ops[0].number;
		*off = (int64_t)ops[0].number2;
		return ops[0].number <= 0xffff;
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		*reg = ops[0].atom - DW_OP_breg0;
		*off = (int64_t)ops[0].number;
		return true;
	}
	return false;
}

enum saved { SAVED_UNCHANGED, SAVED_UNDEFINED, SAVED_AT_CFA, SAVED_AT_RBP, SAVED_OTHER };

/* Where the caller's value of reg is: unchanged, undefined, at CFA + *off,
 * or at RBP + *off (DW_CFA_expression "DW_OP_breg6 N", which libdw hands
 * back after the CFA it pushes first). */
static enum saved
saved_register(Dwarf_Frame *f, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(f, reg, mem, &ops, &n) != 0)
		return SAVED_OTHER;
	if (n == 0)
		return ops == NULL ? SAVED_UNCHANGED : SAVED_UNDEFINED;
	if (ops[0].atom != DW_OP_call_frame_cfa || n > 2)
		return SAVED_OTHER;
	if (n == 2 && ops[1].atom == DW_OP_breg0 + DWARF_REG_RBP) {
		*off = (int64_t)ops[1].number;
		return SAVED_AT_RBP;
	}
	if (n == 1) {
		*off = 0;
		return SAVED_AT_CFA;
	}
	if (ops[1].atom != DW_OP_plus_uconst)	/* e.g. DW_OP_stack_value: a value */
		return SAVED_OTHER;
	*off = (int64_t)ops[1].number;
	return SAVED_AT_CFA;
}

static void
unsupported(struct unwind_row *row, struct unwind_build_stats *st, enum unwind_unsupported kind)
{
	st->unsupported[kind]++;
	row->cfa_type = SP_CFA_NONE;
	row->cfa_offset = 0;
	row->rbp_offset = 0;
}

/* The CFA part of row; false (kind counted) when it has no row form. */
static bool
cfa_rule(Dwarf_Frame *f, struct unwind_row *row, struct unwind_build_stats *st)
{
	Dwarf_Op *ops;
	size_t n;
	unsigned reg;
	int64_t off;

	if (dwarf_frame_cfa(f, &ops, &n) != 0 || n == 0) {
		unsupported(row, st, UNWIND_UNSUP_CFA_EXPRESSION);
		return false;
	}
	if (is_plt_expression(ops, n)) {
		row->cfa_type = SP_CFA_PLT;
		row->cfa_offset = 8;
		return true;
	}
	if (is_drap_expression(ops, n, &off)) {
		reg = DWARF_REG_RBP;
		row->cfa_type = SP_CFA_RBP_DEREF;
	} else if (!cfa_register(ops, n, &reg, &off)) {
		unsupported(row, st, UNWIND_UNSUP_CFA_EXPRESSION);
		return false;
	}
	if (reg != DWARF_REG_RSP && reg != DWARF_REG_RBP) {
		unsupported(row, st, UNWIND_UNSUP_CFA_REGISTER);
		return false;
	}
	if (off < INT32_MIN || off > INT32_MAX) {
		unsupported(row, st, UNWIND_UNSUP_RANGE);
		return false;
	}
	if (row->cfa_type != SP_CFA_RBP_DEREF)
		row->cfa_type = reg == DWARF_REG_RSP ? SP_CFA_RSP : SP_CFA_RBP;
	row->cfa_offset = (int32_t)off;
	return true;
}

/* The RBP part of an RSP or RBP row: unchanged, or saved at CFA + off. */
static void
rbp_at_cfa(struct unwind_row *row, struct unwind_build_stats *st, enum saved s, int64_t off)
{
	if (s == SAVED_UNCHANGED || s == SAVED_UNDEFINED)
		return;
	if (s != SAVED_AT_CFA)
		unsupported(row, st, UNWIND_UNSUP_RBP_RULE);
	else if (off == 0 || off < INT16_MIN || off > INT16_MAX)
		unsupported(row, st, UNWIND_UNSUP_RANGE);
	else
		row->rbp_offset = (int16_t)off;
}

/* The RBP part of a DRAP row: always saved, at RBP + off. */
static void
rbp_at_rbp(struct unwind_row *row, struct unwind_build_stats *st, enum saved s, int64_t off)
{
	if (s != SAVED_AT_RBP)
		unsupported(row, st, UNWIND_UNSUP_RBP_RULE);
	else if (off < INT16_MIN || off > INT16_MAX)
		unsupported(row, st, UNWIND_UNSUP_RANGE);
	else
		row->rbp_offset = (int16_t)off;
}

void
cfi_rule_row(Dwarf_Frame *f, struct unwind_row *row, struct unwind_build_stats *st)
{
	bool signal = false;
	int64_t off = 0;
	enum saved s;

	row->cfa_offset = 0;
	row->rbp_offset = 0;
	if (dwarf_frame_info(f, NULL, NULL, &signal) >= 0 && signal) {
		row->cfa_type = SP_CFA_SIGNAL;
		return;
	}
	s = saved_register(f, DWARF_REG_RA, &off);
	if (s == SAVED_UNDEFINED) {
		row->cfa_type = SP_CFA_END;
		return;
	}
	if (s != SAVED_AT_CFA || off != -8) {
		unsupported(row, st, UNWIND_UNSUP_RA_RULE);
		return;
	}
	if (!cfa_rule(f, row, st))
		return;
	s = saved_register(f, DWARF_REG_RBP, &off);
	if (row->cfa_type == SP_CFA_RBP_DEREF)
		rbp_at_rbp(row, st, s, off);
	else
		rbp_at_cfa(row, st, s, off);
}
