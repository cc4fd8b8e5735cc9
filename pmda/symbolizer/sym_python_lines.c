/*
 * sym_python_lines.c - the line a Python frame is at, from its code
 * object's line table as read out of the process: co_lnotab (3.9),
 * co_linetable's pairs (3.10), the location table (3.11+).  As CPython's
 * own PyCode_Addr2Line of each version reads them (Objects/lnotab_notes.txt,
 * Objects/locations.md), but over bytes that may be anything: every byte
 * is read within n, the walk is one pass over the table, and a line that
 * no real table gives (< 1 or > INT32_MAX) is none.
 */
#include <stdint.h>
#include "sym_python.h"

/* A line once the walk is done: -1 when it is no line. */
static int32_t
line_of(int64_t line)
{
	return line >= 1 && line <= INT32_MAX ? (int32_t)line : -1;
}

/* 3.9: (bytecode delta, signed line delta) pairs; a line holds from its
 * pair's offset until the next pair's. */
static int32_t
lnotab(const uint8_t *t, size_t n, int64_t line, uint64_t addr)
{
	uint64_t at = 0;

	for (size_t i = 0; i + 1 < n; i += 2) {
		at += t[i];
		if (at > addr)
			break;
		line += (int8_t)t[i + 1];
	}
	return line_of(line);
}

/* 3.10: (bytes covered, signed line delta) pairs, -128: no line. */
static int32_t
linetable310(const uint8_t *t, size_t n, int64_t line, uint64_t addr)
{
	uint64_t end = 0;

	for (size_t i = 0; i + 1 < n; i += 2) {
		uint64_t start = end;
		int8_t d = (int8_t)t[i + 1];

		end += t[i];
		if (d != -128)
			line += d;
		if (start <= addr && addr < end)
			return d == -128 ? -1 : line_of(line);
	}
	return -1;
}

/* The location table's varint at t[*i]: 6 bits a byte, bit 6 "more"; it
 * ends at the table's end or at the next entry's first byte. */
static uint64_t
varint(const uint8_t *t, size_t n, size_t *i)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (*i < n && !(t[*i] & 0x80)) {
		uint8_t b = t[(*i)++];

		if (shift < 64)
			v |= (uint64_t)(b & 63) << shift;
		shift += 6;
		if (!(b & 64))
			break;
	}
	return v;
}

/* 3.11+: entries of a first byte 1CCCCLLL (code C, L + 1 code units)
 * then their data: 15 no location, 14 long form and 13 no columns start
 * with a signed varint line delta, 10-12 are deltas 0-2, 0-9 the same
 * line. */
static int32_t
locations(const uint8_t *t, size_t n, int64_t line, uint64_t addr)
{
	uint64_t end = 0;
	size_t i = 0;

	while (i < n) {
		uint8_t head = t[i++];
		unsigned code = (head >> 3) & 15;
		uint64_t start = end;

		if (!(head & 0x80))
			continue;	/* not an entry's first byte: skipped as CPython does */
		end += ((head & 7) + 1) * 2;
		if (code == 13 || code == 14) {
			uint64_t u = varint(t, n, &i);
			int64_t d = (int64_t)(u >> 1);

			if (d > INT32_MAX)
				return -1;	/* no table goes there and back */
			line += u & 1 ? -d : d;
			if (line < INT32_MIN || line > INT32_MAX)
				return -1;
		} else if (code >= 10 && code <= 12) {
			line += code - 10;
		}
		if (start <= addr && addr < end)
			return code == 15 ? -1 : line_of(line);
		while (i < n && !(t[i] & 0x80))
			i++;	/* the entry's columns */
	}
	return -1;
}

int32_t
sym_python_line(unsigned minor, const uint8_t *table, size_t n, int32_t firstlineno,
		uint64_t unit)
{
	uint64_t addr = unit * 2;	/* the tables count bytes */

	if (minor <= 9)
		return lnotab(table, n, firstlineno, addr);
	if (minor == 10)
		return linetable310(table, n, firstlineno, addr);
	return locations(table, n, firstlineno, addr);
}
