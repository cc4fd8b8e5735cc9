/*
 * text.h - make any byte string safe to write: XML text and attributes
 * (entities, U+FFFD for what XML 1.0 forbids), and the same cleaning
 * without entities for JSON strings and folded lines.  Profile names come
 * from processes we do not control.
 */
#ifndef TEXT_H
#define TEXT_H

#include <stddef.h>
#include "membuf.h"

/* Escape text for XML character data or attribute values; invalid UTF-8 and
 * control characters become U+FFFD (one per bad byte). */
void xml_escape(struct membuf *out, const char *s);
/* The same, stopping after max_chars characters. */
void xml_escape_prefix(struct membuf *out, const char *s, size_t max_chars);
/* The same replacements, no entities: for JSON strings and folded lines. */
void text_clean(struct membuf *out, const char *s);
/* How many characters xml_escape() writes for s (entities count one). */
size_t xml_text_length(const char *s);

#endif /* TEXT_H */
