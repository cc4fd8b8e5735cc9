/*
 * bounded_regex.h - the process filter's regular expressions, with their
 * cost bounded: PCRE2 compiled from at most BOUNDED_REGEX_MAX bytes with
 * at most BOUNDED_REGEX_COMPILE_BYTES of memory, and matched with PCRE2's
 * match, depth and heap limits.  glibc's regcomp had no such bounds: 21
 * bytes ("a" and 20 "+") took 2.2 s and 750 MB (issue 17).
 *
 * The dialect is PCRE2's (Perl's) with '.' matching any byte and '$' only
 * at the very end, as in POSIX ERE; docs/design.md ("Bounds") says what
 * differs from ERE.
 */
#ifndef BOUNDED_REGEX_H
#define BOUNDED_REGEX_H

#include <stdbool.h>
#include <stddef.h>

#define BOUNDED_REGEX_MAX		4096		/* pattern bytes */
#define BOUNDED_REGEX_COMPILE_BYTES	(1u << 20)	/* memory while compiling */
#define BOUNDED_REGEX_MATCH_LIMIT	10000		/* backtracking steps per subject */
#define BOUNDED_REGEX_DEPTH_LIMIT	1000		/* nested backtracking points */
#define BOUNDED_REGEX_HEAP_KIB		256		/* match frames, KiB */

struct bounded_regex;

/* Compile text; NULL and a reason in why (PCRE2's message and the offset,
 * or the bound that was hit) when it cannot be. */
struct bounded_regex *bounded_regex_compile(const char *text, char *why, size_t whylen);
void bounded_regex_free(struct bounded_regex *re);

/* 1: re matches somewhere in subject[0..len); 0: it does not; -1: a match
 * limit was reached first (the caller counts it and takes it as no match). */
int bounded_regex_search(struct bounded_regex *re, const char *subject, size_t len);

#endif /* BOUNDED_REGEX_H */
