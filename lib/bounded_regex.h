/*
 * bounded_regex.h - regular expressions whose cost is bounded, so that no
 * pattern can make either side take seconds or gigabytes: glibc's regcomp
 * took 2.2 s and 750 MB for "a" and 20 "+" (issue 17).  The PMDA's
 * process filter (a store to stackprof.control.process_regex) and
 * pmflame's --process pattern both compile here.
 *
 * PCRE2 compiled from at most BOUNDED_REGEX_MAX bytes with at most
 * BOUNDED_REGEX_COMPILE_BYTES of memory (the PMDA lives as long as pmcd;
 * besides, the 8-bit library Debian builds with LINK_SIZE 2 refuses
 * compiled code over 64 KiB, "regular expression is too large"), and
 * matched with PCRE2's match, depth and heap limits.
 *
 * Dialect: PCRE2's (Perl's) with '.' matching any byte and '$' only at
 * the very end, as in POSIX ERE; docs/design.md ("Bounds") says what
 * differs from ERE.  BOUNDED_REGEX_WHOLE anchors the pattern at both ends
 * by PCRE2 itself, so "a)|(b" cannot escape the anchoring.
 */
#ifndef LIB_BOUNDED_REGEX_H
#define LIB_BOUNDED_REGEX_H

#include <stddef.h>

#define BOUNDED_REGEX_MAX		4096		/* pattern bytes */
#define BOUNDED_REGEX_COMPILE_BYTES	(1u << 20)	/* memory while compiling */
#define BOUNDED_REGEX_MATCH_LIMIT	10000		/* backtracking steps per subject */
#define BOUNDED_REGEX_DEPTH_LIMIT	1000		/* nested backtracking points */
#define BOUNDED_REGEX_HEAP_KIB		256		/* match frames, KiB */

/* flags of bounded_regex_compile */
#define BOUNDED_REGEX_WHOLE		1u		/* match the whole subject only */

struct bounded_regex;

/* Compile text; NULL and a reason in why (PCRE2's message and the offset,
 * or the bound that was hit) when it cannot be. */
struct bounded_regex *bounded_regex_compile(const char *text, unsigned flags,
					    char *why, size_t whylen);
void bounded_regex_free(struct bounded_regex *re);

/* 1: re matches subject[0..len) (somewhere, or as a whole with
 * BOUNDED_REGEX_WHOLE); 0: it does not; -1: a match limit was reached
 * first (the caller counts it and takes it as no match). */
int bounded_regex_search(struct bounded_regex *re, const char *subject, size_t len);

#endif /* LIB_BOUNDED_REGEX_H */
