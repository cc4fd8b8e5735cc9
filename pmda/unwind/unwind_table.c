/*
 * unwind_table.c - a table of unwind rows: appending with merging while
 * it is built, lookup, freeing.
 */
#include <stdlib.h>
#include <string.h>
#include "cfi_internal.h"
#include "lib/array.h"

static bool
same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->cfa_type == b->cfa_type && a->cfa_offset == b->cfa_offset &&
	       a->rbp_offset == b->rbp_offset;
}

bool
unwind_builder_add(struct unwind_builder *b, const struct unwind_row *row)
{
	struct unwind_table *t = &b->t;
	struct unwind_row *last = t->nrows ? &t->rows[t->nrows - 1] : NULL;

	if (last && last->pc == row->pc) {	/* an empty range before row */
		*last = *row;
		if (t->nrows >= 2 && same_rule(&t->rows[t->nrows - 2], row))
			t->nrows--;
		return true;
	}
	if (last && same_rule(last, row))
		return true;
	if (array_reserve(&t->rows, &b->cap, t->nrows + 1) < 0)
		return false;
	t->rows[t->nrows++] = *row;
	return true;
}

void
unwind_builder_trim(struct unwind_builder *b)
{
	struct unwind_row *rows;

	if (b->t.nrows == 0 || b->t.nrows == b->cap)
		return;
	if ((rows = realloc(b->t.rows, b->t.nrows * sizeof(*rows))) != NULL) {
		b->t.rows = rows;
		b->cap = b->t.nrows;
	}
}

const struct unwind_row *
unwind_table_find(const struct unwind_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nrows;

	/* the last row whose pc <= pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

void
unwind_table_free(struct unwind_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->nrows = 0;
}
