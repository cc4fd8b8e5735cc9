/*
 * json_text_priv.h - JSON text written straight into a membuf, for the
 * export emitters whose documents are mostly long number arrays (cJSON
 * would hold every number as a double and an item).  Private to emit/.
 */
#ifndef JSON_TEXT_PRIV_H
#define JSON_TEXT_PRIV_H

#include <stdint.h>
#include "common/membuf.h"

/* s as a JSON string, quotes included: cleaned by text_clean (invalid
 * UTF-8 and control characters become U+FFFD), then '"' and '\' escaped. */
void json_string(struct membuf *out, const char *s);
/* v in decimal, exactly. */
void json_u64(struct membuf *out, uint64_t v);

#endif /* JSON_TEXT_PRIV_H */
