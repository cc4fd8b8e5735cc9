/*
 * fuzz_sym_python_lines.c - a code object's line table as
 * sym_python_lines.c reads it from a process's memory, where any byte may
 * be anything.  Input: the version (first byte: 3.9-3.13), co_firstlineno
 * (next 4), then a bytes object (header and table, as the namer reads
 * it).  Every code unit the table could cover, and some past it, must
 * give -1 or a line in [1, INT32_MAX]; none past what the table can
 * cover (3.10: 255 bytes a pair, 3.11+: 8 units a byte); and where the
 * table is well formed, the line CPython's own walk gives (the reference
 * below follows each version's Objects/codeobject.c step by step).
 */
#include <stdbool.h>
#include <linux/types.h>
#include "fuzz.h"
#include "symbolizer/sym_python.h"

#define UNITS_MAX	1024	/* code units looked up an input, at most */

/* CPython's walk: -2 when the table is malformed (3.11+: a varint running
 * into the next entry or past the end, or a line leaving int32, which
 * CPython never writes). */
static int64_t
reference(unsigned minor, const uint8_t *t, size_t n, int64_t line, uint64_t addr)
{
	uint64_t start = 0, end = 0;

	if (minor == 9) {		/* 3.9 PyCode_Addr2Line */
		for (size_t i = 0; i + 1 < n; i += 2) {
			end += t[i];
			if (end > addr)
				break;
			line += (signed char)t[i + 1];
		}
		return line;
	}
	if (minor == 10) {		/* 3.10 advance() until ar_end > addr */
		for (size_t i = 0; i + 1 < n; i += 2) {
			int ld = (signed char)t[i + 1];
			int64_t ar_line;

			start = end;
			end += t[i];
			ar_line = ld == -128 ? -1 : (line += ld);
			if (end > addr)
				return start <= addr ? ar_line : -1;
		}
		return -1;
	}
	/* 3.11+ advance(): get_line_delta, then lo_next to the next byte with bit 7 */
	for (size_t i = 0; i < n;) {
		uint8_t h = t[i];
		int code = (h >> 3) & 15;
		int64_t ar_line;

		if (!(h & 0x80))
			return -2;
		if (code == 13 || code == 14) {
			uint64_t val = 0;
			unsigned shift = 0;
			size_t j = i + 1;
			uint8_t rd;

			do {
				if (j >= n || (t[j] & 0x80) || shift > 30)
					return -2;
				rd = t[j++];
				val |= (uint64_t)(rd & 63) << shift;
				shift += 6;
			} while (rd & 64);
			line += val & 1 ? -(int64_t)(val >> 1) : (int64_t)(val >> 1);
			if (line < INT32_MIN || line > INT32_MAX)
				return -2;	/* out of what a line is: no table's */
		} else if (code >= 10 && code <= 12) {
			line += code - 10;
		}
		ar_line = code == 15 ? -1 : line;
		start = end;
		end += ((h & 7) + 1) * 2;
		do
			i++;
		while (i < n && !(t[i] & 0x80));
		if (end > addr)
			return start <= addr ? ar_line : -1;
	}
	return -1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sym_python_layout *L;
	unsigned minor;
	int32_t first;
	int64_t len;
	uint64_t cover;
	const uint8_t *t;

	if (size < 5)
		return 0;
	minor = 9 + data[0] % 5;
	memcpy(&first, data + 1, 4);
	data += 5, size -= 5;
	L = sym_python_layout_for(3, minor == 13 ? 12 : minor);	/* 3.13's bytes are 3.12's */
	if (!L)
		abort();
	len = sym_python_bytes_len(L, data, size, 1 << 20);
	if (len < -1 || len > 1 << 20)
		abort();
	if (len < 0 || (uint64_t)len > size - L->bytes_data) {
		/* no bytes object, or one read in part: the table is the rest */
		if (size < L->bytes_data)
			return 0;
		len = (int64_t)(size - L->bytes_data);
	}
	t = data + L->bytes_data;
	/* units a table can cover (3.9: after them its last line holds) */
	cover = minor >= 11 ? 8 * (uint64_t)len : 255 * ((uint64_t)len / 2) / 2 + 1;
	for (uint64_t u = 0; u < UNITS_MAX; u++) {
		int32_t got = sym_python_line(minor, t, (size_t)len, first, u);
		int64_t want;

		if (got != -1 && got < 1)
			abort();
		if (got != -1 && u >= cover && minor >= 10)
			abort();
		want = reference(minor, t, (size_t)len, first, u * 2);
		if (want != -2 && got != (want >= 1 && want <= INT32_MAX ? want : -1))
			abort();
		if (u >= cover + 64)
			break;
	}
	return 0;
}
