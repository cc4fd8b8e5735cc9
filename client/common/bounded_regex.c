/*
 * bounded_regex.c - pmflame's --process pattern, compiled and matched by
 * PCRE2 within bounds (see header for why compiling needs no budget here).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcre2.h>
#include "bounded_regex.h"

struct bounded_regex {
	pcre2_code		*code;
	pcre2_match_context	*limits;
	pcre2_match_data	*md;
};

struct bounded_regex *
bounded_regex_whole(const char *text, char *why, size_t whylen)
{
	struct bounded_regex	*re;
	PCRE2_UCHAR		msg[120];
	PCRE2_SIZE		off = 0;
	int			err = 0;

	if (strlen(text) > BOUNDED_REGEX_MAX) {
		snprintf(why, whylen, "longer than %u bytes", BOUNDED_REGEX_MAX);
		return NULL;
	}
	if ((re = calloc(1, sizeof(*re))) == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	/* anchored by PCRE2, not by wrapping: "a)|(b" cannot escape */
	re->code = pcre2_compile((PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED,
				 PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_DOTALL |
				 PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C,
				 &err, &off, NULL);
	if (re->code == NULL) {
		pcre2_get_error_message(err, msg, sizeof(msg));
		snprintf(why, whylen, "%s at offset %zu", (const char *)msg, (size_t)off);
		bounded_regex_free(re);
		return NULL;
	}
	re->limits = pcre2_match_context_create(NULL);
	re->md = pcre2_match_data_create(1, NULL);
	if (re->limits == NULL || re->md == NULL) {
		snprintf(why, whylen, "out of memory");
		bounded_regex_free(re);
		return NULL;
	}
	pcre2_set_match_limit(re->limits, BOUNDED_REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(re->limits, BOUNDED_REGEX_DEPTH_LIMIT);
	pcre2_set_heap_limit(re->limits, BOUNDED_REGEX_HEAP_KIB);
	return re;
}

void
bounded_regex_free(struct bounded_regex *re)
{
	if (re == NULL)
		return;
	pcre2_code_free(re->code);
	pcre2_match_context_free(re->limits);
	pcre2_match_data_free(re->md);
	free(re);
}

int
bounded_regex_match(struct bounded_regex *re, const char *name)
{
	int	rc = pcre2_match(re->code, (PCRE2_SPTR)name, strlen(name), 0, 0, re->md, re->limits);

	if (rc >= 0)
		return 1;
	return rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}
