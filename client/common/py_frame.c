/*
 * py_frame.c - the parts of a Python frame's name (py_frame.h).  The
 * qualname's shape tells it from a native name: C++'s "f<void ()>::g()"
 * has an unbalanced '<' before its " (", and library, kernel and
 * unresolved frames start with '['.
 */
#include <string.h>
#include "py_frame.h"

static bool
qualname_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c >= 0x80;
}

bool
py_frame_parse(const char *name, size_t len, struct py_frame *f)
{
	size_t q = 0, end, colon;
	int depth = 0;
	uint64_t line = 0;

	if (len < 5 || name[len - 1] != ')')
		return false;
	for (; q < len && name[q] != ' '; q++) {
		unsigned char c = (unsigned char)name[q];

		if (c == '<')
			depth++;
		else if (c == '>' && --depth < 0)
			return false;
		else if (c != '>' && !qualname_char(c))
			return false;
	}
	if (q == 0 || depth != 0 || q + 3 >= len || name[q + 1] != '(')
		return false;
	f->qual_len = q;
	f->file_at = q + 2;
	end = len - 1;			/* the closing ')' */
	for (colon = end; colon > f->file_at && name[colon - 1] >= '0' && name[colon - 1] <= '9';)
		colon--;
	if (colon < end && colon > f->file_at + 1 && name[colon - 1] == ':' && end - colon <= 9) {
		for (size_t i = colon; i < end; i++)
			line = line * 10 + (uint64_t)(name[i] - '0');
		if (line > 0) {
			f->file_len = colon - 1 - f->file_at;
			f->line = (uint32_t)line;
			return true;
		}
	}
	f->file_len = end - f->file_at;
	f->line = 0;
	return f->file_len > 0;
}

size_t
py_frame_strip_line(char *name, size_t len)
{
	struct py_frame f;
	size_t at;

	if (!py_frame_parse(name, len, &f) || f.line == 0)
		return len;
	at = f.file_at + f.file_len;
	name[at] = ')';
	name[at + 1] = '\0';
	return at + 1;
}
