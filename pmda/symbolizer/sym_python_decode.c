/*
 * sym_python_decode.c - CPython objects from bytes read out of a process:
 * no trust in any of them (a code object may be freed and its memory
 * reused while we read), every length checked against what was read.
 */
#include <stdio.h>
#include <string.h>
#include "sym_python.h"
#include "symbolize.h"

static uint64_t
get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* PyASCIIObject.state: interned:2, kind:3, compact:1, ascii:1, then up
 * to 3.11 ready:1 (3.12+: statically_allocated:1, every str is ready) */
#define STATE_KIND(s)		(((s) >> 2) & 7)
#define STATE_COMPACT(s)	(((s) >> 5) & 1)
#define STATE_ASCII(s)		(((s) >> 6) & 1)
#define STATE_READY(s)		(((s) >> 7) & 1)

/* Data offset, char size and length of a str header; false if no str. */
static bool
str_shape(const struct sym_python_layout *L, const uint8_t *obj, size_t n,
	  size_t *data, unsigned *kind, size_t *chars)
{
	uint32_t state;
	int64_t len;

	if (n < (size_t)L->unicode_state + 4 || n < PY_OB_SIZE + 8)
		return false;
	state = get32(obj + L->unicode_state);
	len = (int64_t)get64(obj + PY_OB_SIZE);
	if (!STATE_COMPACT(state) || (L->unicode_ready_bit && !STATE_READY(state)) || len < 0 ||
	    len > PY_STR_MAX_CHARS)
		return false;
	*kind = STATE_KIND(state);
	if (STATE_ASCII(state)) {
		if (*kind != 1)
			return false;
		*data = L->unicode_ascii_data;
	} else {
		if (*kind != 1 && *kind != 2 && *kind != 4)
			return false;
		*data = L->unicode_compact_data;
	}
	*chars = (size_t)len;
	return true;
}

size_t
sym_python_str_size(const struct sym_python_layout *L, const uint8_t *obj, size_t n)
{
	size_t data, chars;
	unsigned kind;

	if (!str_shape(L, obj, n, &data, &kind, &chars))
		return 0;
	return data + chars * kind;
}

/* Append code point c as UTF-8 if it fits whole; false when out is full. */
static bool
put_utf8(char *out, size_t outlen, size_t *o, uint32_t c)
{
	uint8_t b[4];
	size_t k;

	if (c >= 0xd800 && c <= 0xdfff)
		c = '?';		/* a lone surrogate is no UTF-8 */
	if (c < 0x80) {
		b[0] = (uint8_t)c;
		k = 1;
	} else if (c < 0x800) {
		b[0] = 0xc0 | (c >> 6);
		b[1] = 0x80 | (c & 0x3f);
		k = 2;
	} else if (c < 0x10000) {
		b[0] = 0xe0 | (c >> 12);
		b[1] = 0x80 | ((c >> 6) & 0x3f);
		b[2] = 0x80 | (c & 0x3f);
		k = 3;
	} else if (c < 0x110000) {
		b[0] = 0xf0 | (c >> 18);
		b[1] = 0x80 | ((c >> 12) & 0x3f);
		b[2] = 0x80 | ((c >> 6) & 0x3f);
		b[3] = 0x80 | (c & 0x3f);
		k = 4;
	} else {
		b[0] = '?';
		k = 1;
	}
	if (*o + k >= outlen)
		return false;
	memcpy(out + *o, b, k);
	*o += k;
	return true;
}

bool
sym_python_str(const struct sym_python_layout *L, const uint8_t *obj, size_t n,
	       char *out, size_t outlen)
{
	size_t data, chars, o = 0;
	unsigned kind;

	if (outlen == 0 || !str_shape(L, obj, n, &data, &kind, &chars) || data > n)
		return false;
	if (chars > (n - data) / kind)
		chars = (n - data) / kind;	/* read in part: its first characters */
	for (size_t i = 0; i < chars; i++) {
		const uint8_t *p = obj + data + i * kind;
		uint32_t c = kind == 1 ? p[0] : kind == 2 ? (uint32_t)(p[0] | p[1] << 8) : get32(p);

		if (!put_utf8(out, outlen, &o, c))
			break;
	}
	out[o] = '\0';
	return true;
}

bool
sym_python_code_fields(const struct sym_python_layout *L, const uint8_t *obj, size_t n,
		       struct sym_python_code *c)
{
	if (n < L->code_size || (size_t)L->code_firstlineno + 4 > n ||
	    (size_t)L->code_filename + 8 > n || (size_t)L->code_name + 8 > n ||
	    (size_t)L->code_qualname + 8 > n || (size_t)L->code_linetable + 8 > n)
		return false;
	c->type = get64(obj + PY_OB_TYPE);
	c->filename = get64(obj + L->code_filename);
	c->name = get64(obj + L->code_name);
	c->qualname = L->has_qualname ? get64(obj + L->code_qualname) : 0;
	c->linetable = get64(obj + L->code_linetable);
	c->firstlineno = (int32_t)get32(obj + L->code_firstlineno);
	return true;
}

void
sym_python_frame_text(const char *qualname, const char *filename, int32_t line, char *out,
		      size_t len)
{
	size_t q = strlen(qualname), f = strlen(filename), l = 0;
	char num[16];

	if (len == 0)
		return;
	if (line > 0 && f > 0)
		l = (size_t)snprintf(num, sizeof(num), ":%d", line);
	/* the file is cut first, then dropped with its line: the function
	 * is what a reader looks for */
	if (q + 4 + l >= len) {
		q = q < len ? q : len - 1;
		f = 0;
	} else if (q + f + 3 + l >= len) {
		f = len - q - 4 - l;
	}
	memcpy(out, qualname, q);
	if (f > 0) {
		memcpy(out + q, " (", 2);
		memcpy(out + q + 2, filename, f);
		memcpy(out + q + 2 + f, num, l);
		out[q + 2 + f + l] = ')';
		out[q + 3 + f + l] = '\0';
	} else {
		out[q] = '\0';
	}
	frame_name_sanitize(out);
}

int64_t
sym_python_bytes_len(const struct sym_python_layout *L, const uint8_t *obj, size_t n, size_t max)
{
	int64_t len;

	if (n < L->bytes_data || n < PY_OB_SIZE + 8)
		return -1;
	len = (int64_t)get64(obj + PY_OB_SIZE);
	return len >= 0 && (uint64_t)len <= max ? len : -1;
}
