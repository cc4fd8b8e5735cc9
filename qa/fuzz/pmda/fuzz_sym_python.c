/*
 * fuzz_sym_python.c - CPython objects as sym_python_decode.c decodes them
 * from a process's memory, where any byte may be anything (a code object
 * freed and reused while read).  The input is one object: decoded as a
 * str (whole, and read in part at every length the first byte picks),
 * and as a code object, with the layout of the version the second byte
 * picks (3.9-3.12 from the table, 3.13 from the input itself read as
 * _Py_DebugOffsets, whose every accepted field must lie within the
 * bytes the walker and the namer read); the text must be valid UTF-8
 * within its buffer, and the frame text made of two such strings (and a
 * line) a valid folded frame.
 */
#include <linux/types.h>
#include "fuzz_sym.h"
#include "symbolizer/sym_python.h"

static void
check_utf8(const char *s, size_t outlen)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	if (n >= outlen)
		abort();
	for (size_t i = 0; i < n;) {
		size_t k = p[i] < 0x80 ? 1 : (p[i] & 0xe0) == 0xc0 ? 2 : (p[i] & 0xf0) == 0xe0 ? 3 :
			   (p[i] & 0xf8) == 0xf0 ? 4 : 0;

		if (k == 0 || i + k > n)
			abort();
		for (size_t j = 1; j < k; j++)
			if ((p[i + j] & 0xc0) != 0x80)
				abort();
		i += k;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sym_python_layout *L;
	struct sym_python_layout debug;
	char a[PY_NAME_MAX], b[64], text[2 * PY_NAME_MAX + 4];
	struct sym_python_code c;
	size_t cut, need;
	unsigned minor;

	if (size < 2)
		return 0;
	cut = data[0] % 64 + 1;
	minor = 9 + data[1] % 5;
	data += 2, size -= 2;
	L = sym_python_layout_for(3, minor);
	if (!L)
		abort();
	if (L->debug_offsets) {
		uint64_t v = 0;

		if (size >= 16)
			memcpy(&v, data + 8, 8);
		if (sym_python_layout_debug(L, data, size, (uint32_t)v, &debug) != 0)
			L = sym_python_layout_for(3, 12);
		else if (debug.frame_code + 8 > SP_PY_FRAME_READ ||
			 debug.frame_previous + 8 > SP_PY_FRAME_READ ||
			 debug.frame_instr + 8 > SP_PY_FRAME_READ ||
			 debug.frame_entry >= SP_PY_FRAME_READ || debug.debug_offsets ||
			 debug.unicode_compact_data <= debug.unicode_ascii_data)
			abort();
		else
			L = &debug;
	}
	a[0] = b[0] = '\0';
	if (sym_python_str(L, data, size, a, sizeof(a)))
		check_utf8(a, sizeof(a));
	if (sym_python_str(L, data, size < cut ? size : cut, b, cut < sizeof(b) ? cut : sizeof(b)))
		check_utf8(b, cut < sizeof(b) ? cut : sizeof(b));
	need = sym_python_str_size(L, data, size);
	if (need && need < L->unicode_ascii_data)
		abort();
	if (sym_python_code_fields(L, data, size, &c) && size < L->code_size)
		abort();
	sym_python_frame_text(a, b, (int32_t)(cut * 1000003u) - 1, text, sizeof(text));
	fuzz_check_name(text);
	sym_python_frame_text(a, b, cut % 2 ? (int32_t)cut : -1, text, cut);
	fuzz_check_name(text);
	if (strlen(text) >= cut)
		abort();
	return 0;
}
