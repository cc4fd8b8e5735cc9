/*
 * bounded_regex.c - PCRE2 with its memory and time bounded (see header).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcre2.h>
#include "bounded_regex.h"

/* An allocator that refuses to go past a budget: PCRE2 takes its compile
 * memory from it, so no pattern can make compiling cost more. */
struct budget {
	size_t	used, limit;
};

struct bounded_regex {
	struct budget		budget;		/* the code is allocated from it */
	pcre2_code		*code;
	pcre2_match_context	*mctx;
	pcre2_match_data	*md;
};

static void *
budget_malloc(PCRE2_SIZE size, void *arg)
{
	struct budget	*b = arg;
	size_t		*p;

	if (size > b->limit - b->used || (p = malloc(sizeof(size_t) + size)) == NULL)
		return NULL;
	b->used += size;
	*p = size;
	return p + 1;
}

static void
budget_free(void *ptr, void *arg)
{
	struct budget	*b = arg;
	size_t		*p = ptr;

	if (p == NULL)
		return;
	b->used -= p[-1];
	free(p - 1);
}

static pcre2_code *
compile(struct budget *b, const char *text, unsigned flags, char *why, size_t whylen)
{
	pcre2_general_context	*gctx = pcre2_general_context_create(budget_malloc, budget_free, b);
	pcre2_compile_context	*cctx = gctx ? pcre2_compile_context_create(gctx) : NULL;
	pcre2_code		*code = NULL;
	PCRE2_UCHAR		msg[120];
	PCRE2_SIZE		off = 0;
	uint32_t		options = PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C;
	int			err = 0;

	if (cctx == NULL) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	pcre2_set_max_pattern_length(cctx, BOUNDED_REGEX_MAX);
	/* anchored by PCRE2, not by wrapping the text: "a)|(b" cannot escape */
	if (flags & BOUNDED_REGEX_WHOLE)
		options |= PCRE2_ANCHORED | PCRE2_ENDANCHORED;
	code = pcre2_compile((PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, options, &err, &off, cctx);
	if (code == NULL && err == PCRE2_ERROR_HEAP_FAILED) {
		snprintf(why, whylen, "compiling it needs more than %u KiB",
			 BOUNDED_REGEX_COMPILE_BYTES >> 10);
	} else if (code == NULL) {
		pcre2_get_error_message(err, msg, sizeof(msg));
		snprintf(why, whylen, "%s at offset %zu", (const char *)msg, (size_t)off);
	}
out:
	/* the code keeps the allocator (and so the budget), not the contexts */
	pcre2_compile_context_free(cctx);
	pcre2_general_context_free(gctx);
	return code;
}

struct bounded_regex *
bounded_regex_compile(const char *text, unsigned flags, char *why, size_t whylen)
{
	struct bounded_regex	*re;

	if (strlen(text) > BOUNDED_REGEX_MAX) {
		snprintf(why, whylen, "longer than %u bytes", BOUNDED_REGEX_MAX);
		return NULL;
	}
	if ((re = calloc(1, sizeof(*re))) == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	re->budget.limit = BOUNDED_REGEX_COMPILE_BYTES;
	if ((re->code = compile(&re->budget, text, flags, why, whylen)) == NULL)
		goto fail;
	re->mctx = pcre2_match_context_create(NULL);
	re->md = pcre2_match_data_create(1, NULL);
	if (re->mctx == NULL || re->md == NULL) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	pcre2_set_match_limit(re->mctx, BOUNDED_REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(re->mctx, BOUNDED_REGEX_DEPTH_LIMIT);
	pcre2_set_heap_limit(re->mctx, BOUNDED_REGEX_HEAP_KIB);
	return re;
fail:
	bounded_regex_free(re);
	return NULL;
}

void
bounded_regex_free(struct bounded_regex *re)
{
	if (re == NULL)
		return;
	pcre2_code_free(re->code);
	pcre2_match_context_free(re->mctx);
	pcre2_match_data_free(re->md);
	free(re);
}

int
bounded_regex_search(struct bounded_regex *re, const char *subject, size_t len)
{
	int	rc = pcre2_match(re->code, (PCRE2_SPTR)subject, len, 0, 0, re->md, re->mctx);

	if (rc >= 0)
		return 1;
	/* a match, depth or heap limit: no answer within the bounds */
	return rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}
