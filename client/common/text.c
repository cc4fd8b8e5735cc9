/*
 * text.c - write any byte string as XML text that is always
 * well-formed: markup characters become entities, and every byte that is
 * not part of a valid UTF-8 character allowed in XML 1.0 (control
 * characters, C1 controls, surrogates, overlong forms, U+FFFE/U+FFFF)
 * becomes U+FFFD.  Profile names come from processes we do not control.
 */
#include <stdint.h>
#include "text.h"

#define REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD */

/*
 * Length of the valid, XML-allowed UTF-8 character at s (1-4), or 0 when
 * the byte at s must be replaced.
 */
static size_t
xml_char_len(const unsigned char *s)
{
	uint32_t	cp;
	size_t		len, i;

	if (s[0] < 0x80)
		return (s[0] < 0x20 || s[0] == 0x7f) ? 0 : 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;			/* overlong or out of range */
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0;			/* surrogates, XML non-characters */
	if (cp >= 0x80 && cp <= 0x9f)
		return 0;			/* C1 controls */
	return len;
}

static const char *
entity(unsigned char c)
{
	switch (c) {
	case '&':	return "&amp;";
	case '<':	return "&lt;";
	case '>':	return "&gt;";
	case '"':	return "&quot;";
	case '\'':	return "&#39;";
	}
	return NULL;
}

size_t
xml_text_length(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			n = 0, len;

	while (*p) {
		len = xml_char_len(p);
		p += len ? len : 1;
		n++;
	}
	return n;
}

static void
write_text(struct membuf *out, const char *s, size_t max_chars, int entities)
{
	const unsigned char	*p = (const unsigned char *)s;
	const unsigned char	*run = p;	/* bytes copied as they are */
	const char		*ent;
	size_t			len, n;

	for (n = 0; *p && n < max_chars; n++) {
		len = xml_char_len(p);
		ent = len == 1 && entities ? entity(*p) : NULL;
		if (len != 0 && ent == NULL) {
			p += len;
			continue;
		}
		membuf_append(out, run, (size_t)(p - run));
		membuf_puts(out, ent ? ent : REPLACEMENT);
		run = ++p;
	}
	membuf_append(out, run, (size_t)(p - run));
}

void
xml_escape_prefix(struct membuf *out, const char *s, size_t max_chars)
{
	write_text(out, s, max_chars, 1);
}

void
xml_escape(struct membuf *out, const char *s)
{
	write_text(out, s, SIZE_MAX, 1);
}

void
text_clean(struct membuf *out, const char *s)
{
	write_text(out, s, SIZE_MAX, 0);
}
