/*
 * test_sym_python_lines.c - the line table of each CPython 3.9-3.13
 * (sym_python_lines.c): one function's table as each version compiled it,
 * every code unit's line against that CPython's own answer
 * (python_lines_vectors.h); hand-made tables for what the function has
 * not (3.10's -128, a 3.11+ entry with no location, a long form), and
 * tables cut short or made of garbage, which give no line, never a
 * wrong one past what was read.
 */
#include <stdint.h>
#include <linux/types.h>
#include "unit.h"
#include "symbolizer/sym_python.h"
#include "python_lines_vectors.h"

static void
test_versions(void)
{
	for (size_t v = 0; v < sizeof(line_vectors) / sizeof(line_vectors[0]); v++) {
		const struct line_vector *x = &line_vectors[v];
		const uint8_t *t = (const uint8_t *)x->table;
		size_t wrong = 0, lines = 0;

		for (size_t u = 0; u < x->units; u++) {
			int32_t got = sym_python_line(x->minor, t, x->n, x->firstlineno, u);

			if (got != x->line[u]) {
				fprintf(stderr, "3.%u unit %zu: line %d, want %d\n", x->minor, u,
					got, x->line[u]);
				wrong++;
			}
			lines += x->line[u] > 0;
		}
		CHECK_INT(wrong, 0);
		CHECK(lines > x->units / 2);		/* the vectors are no run of -1 */
		/* past the function's end: no line (3.9's table has no end: its
		 * last line, as PyCode_Addr2Line) */
		CHECK_INT(sym_python_line(x->minor, t, x->n, x->firstlineno, x->units + 40),
			  x->minor <= 9 ? x->line[x->units - 1] : -1);
		/* the table read in part: a unit it reaches keeps its line */
		CHECK_INT(sym_python_line(x->minor, t, x->n / 2, x->firstlineno, 0), x->line[0]);
		CHECK_INT(sym_python_line(x->minor, t, 0, x->firstlineno,
					  x->units - 1), x->minor <= 9 ? x->firstlineno : -1);
	}
	/* the 300-line jump is there in every version */
	for (size_t v = 0; v < sizeof(line_vectors) / sizeof(line_vectors[0]); v++) {
		bool far = false;

		for (size_t u = 0; u < line_vectors[v].units; u++)
			far |= line_vectors[v].line[u] > 300;
		CHECK(far);
	}
}

static void
test_hand_made(void)
{
	/* 3.10: 4 bytes at line 7 (+2), 2 bytes no line, 2 bytes at line 6 (-1 of 7) */
	static const uint8_t t310[] = { 4, 2, 2, 0x80, 2, 0xff };
	/* 3.11+: 2 units at +1 (one-line form 11, cols), 1 unit no location,
	 * 3 units long form line -5 (svarint 11), then 1 unit no columns +40 (80) */
	static const uint8_t t311[] = { 0xd9, 4, 5, 0xf8, 0xf2, 11, 0, 1, 2, 0xe8, 0x40 | 16, 1 };
	/* 3.9: a line delta after the offset asked for does not count */
	static const uint8_t t39[] = { 0, 1, 6, 0xfe, 6, 3 };

	CHECK_INT(sym_python_line(10, t310, sizeof(t310), 5, 0), 7);
	CHECK_INT(sym_python_line(10, t310, sizeof(t310), 5, 1), 7);
	CHECK_INT(sym_python_line(10, t310, sizeof(t310), 5, 2), -1);
	CHECK_INT(sym_python_line(10, t310, sizeof(t310), 5, 3), 6);
	CHECK_INT(sym_python_line(10, t310, sizeof(t310), 5, 4), -1);

	CHECK_INT(sym_python_line(11, t311, sizeof(t311), 20, 0), 21);
	CHECK_INT(sym_python_line(11, t311, sizeof(t311), 20, 1), 21);
	CHECK_INT(sym_python_line(11, t311, sizeof(t311), 20, 2), -1);
	CHECK_INT(sym_python_line(11, t311, sizeof(t311), 20, 3), 16);
	CHECK_INT(sym_python_line(11, t311, sizeof(t311), 20, 5), 16);
	CHECK_INT(sym_python_line(13, t311, sizeof(t311), 20, 6), 16 + 40);
	CHECK_INT(sym_python_line(12, t311, sizeof(t311), 20, 7), -1);

	CHECK_INT(sym_python_line(9, t39, sizeof(t39), 1, 0), 2);
	CHECK_INT(sym_python_line(9, t39, sizeof(t39), 1, 2), 2);
	CHECK_INT(sym_python_line(9, t39, sizeof(t39), 1, 3), -1);	/* line 0 is none */
	CHECK_INT(sym_python_line(9, t39, sizeof(t39), 1, 6), 3);
}

static void
test_garbage(void)
{
	uint8_t t[64];

	/* a line that would leave int32 (or go below 1) is none */
	CHECK_INT(sym_python_line(9, (const uint8_t[]){ 0, 0x80 }, 2, 100, 0), -1);
	CHECK_INT(sym_python_line(9, (const uint8_t[]){ 0, 0x7f }, 2, INT32_MAX, 0), -1);
	memset(t, 0xff, sizeof(t));	/* 3.11+: each "no location" */
	CHECK_INT(sym_python_line(11, t, sizeof(t), 1, 3), -1);
	/* a long form whose varint never ends before the table does */
	t[0] = 0xf0;
	memset(t + 1, 0x7f, sizeof(t) - 1);
	CHECK_INT(sym_python_line(11, t, sizeof(t), 1, 0), -1);
	/* no entry's first byte at all */
	memset(t, 0x01, sizeof(t));
	CHECK_INT(sym_python_line(12, t, sizeof(t), 1, 0), -1);
	/* an odd length: the last half pair is not read */
	CHECK_INT(sym_python_line(10, (const uint8_t[]){ 2, 1, 9 }, 3, 1, 1), -1);
}

int
main(void)
{
	test_versions();
	test_hand_made();
	test_garbage();
	return unit_report("test_sym_python_lines");
}
