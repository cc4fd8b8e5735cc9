/*
 * json_text.c - JSON strings and integers for the export emitters.
 *
 * text_clean leaves no control characters and only valid UTF-8, so the
 * only characters left that JSON needs escaped are '"' and '\'.
 */
#include "json_text_priv.h"
#include "common/text.h"

void
json_string(struct membuf *out, const char *s)
{
	struct membuf	clean;
	const char	*p, *run;

	membuf_init(&clean);
	text_clean(&clean, s);
	membuf_append(out, "\"", 1);
	for (p = run = clean.data ? clean.data : ""; *p; p++)
		if (*p == '"' || *p == '\\') {
			membuf_append(out, run, (size_t)(p - run));
			membuf_append(out, "\\", 1);
			run = p;
		}
	membuf_append(out, run, (size_t)(p - run));
	membuf_append(out, "\"", 1);
	if (clean.failed)
		out->failed = 1;
	membuf_free(&clean);
}

void
json_u64(struct membuf *out, uint64_t v)
{
	char	digits[20], *p = digits + sizeof(digits);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	membuf_append(out, p, (size_t)(digits + sizeof(digits) - p));
}
