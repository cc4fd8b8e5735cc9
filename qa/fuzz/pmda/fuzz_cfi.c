/*
 * fuzz_cfi.c - the CFI compiler (pmda/unwind/): .eh_frame, .eh_frame_hdr
 * and .debug_frame of an ELF file, read with libdw and compiled into
 * unwind rows; and the PT_LOAD layout that maps a mapping's pcs onto them.  The input is a whole ELF image (the seeds are the
 * unwind-cfi work's, qa/fuzz/corpus/cfi/), built from memory as the vDSO is,
 * and from an fd with the same image as its separate debug file (so a file
 * without .eh_frame reaches .debug_frame).  Beyond "no crash": a refused
 * file leaves the table untouched and says why; a table has rows sorted by
 * pc, of known types, each found again by a lookup at its own pc.
 */
#include "fuzz.h"
#include "unwind/unwind_internal.h"
#include "unwind/unwind_table.h"

static void
check(int sts, const struct unwind_table *t, const struct unwind_build_stats *st,
      const char *err)
{
	if (sts < 0) {
		if (t->rows != NULL || t->nrows != 0 || err[0] == '\0')
			abort();
		return;
	}
	if (st->rows != t->nrows)
		abort();
	for (size_t i = 0; i < t->nrows; i++) {
		if (t->rows[i].cfa_type >= UNWIND_CFA_TYPES ||
		    (i > 0 && t->rows[i - 1].pc >= t->rows[i].pc) ||
		    unwind_table_find(t, t->rows[i].pc) != &t->rows[i])
			abort();
	}
	if (t->nrows > 0 && t->rows[0].pc > 0 && unwind_table_find(t, t->rows[0].pc - 1) != NULL)
		abort();
}

/* Every segment, mapped where a process would map it, gives a bias (but
 * one whose end overflows: no process maps that, and none is found). */
static void
check_layout(int sts, struct ulayout *l)
{
	uint64_t bias;

	if (sts < 0)
		return;
	if (l->nloads <= 0)
		abort();
	for (int i = 0; i < l->nloads; i++)
		if (l->loads[i].filesz > 0 &&
		    l->loads[i].offset + l->loads[i].filesz > l->loads[i].offset &&
		    !unwind_mapping_bias(l, 0x7f0000000000ull, l->loads[i].offset & ~0xfffull, &bias))
			abort();
	unwind_layout_free(l);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_table		t = { 0 };
	struct unwind_build_stats	st;
	struct ulayout			l;
	char				err[256] = "", id[UNWIND_FILE_ID_LEN], path[32];
	int				fd, sts;

	sts = unwind_table_build_mem(data, size, &t, &st, err, sizeof(err));
	check(sts, &t, &st, err);
	unwind_table_free(&t);
	unwind_file_id_mem(data, size, id, sizeof(id));
	unwind_image_id(data, size, id, sizeof(id));
	check_layout(unwind_layout_mem(data, size, &l), &l);

	fd = fuzz_memfd(data, size, path);
	t = (struct unwind_table){ 0 };
	err[0] = '\0';
	sts = unwind_table_build(fd, fd, &t, &st, err, sizeof(err));
	check(sts, &t, &st, err);
	unwind_table_free(&t);
	unwind_file_id(fd, id, sizeof(id));
	check_layout(unwind_layout_fd(fd, &l), &l);
	close(fd);
	return 0;
}
