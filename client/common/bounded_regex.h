/*
 * bounded_regex.h - pmflame's --process pattern: PCRE2 whose compile
 * memory and match work are bounded, so that no pattern can make pmflame
 * take seconds or gigabytes (glibc's regcomp took 2.2 s and 750 MB for
 * "a" and 20 "+", issue 17).
 *
 * Compiling is bounded by PCRE2 itself, so pmflame (a run that ends)
 * keeps no allocation budget of its own: the 8-bit library Debian builds
 * with LINK_SIZE 2 refuses compiled code over 64 KiB ("regular expression
 * is too large"), and its scratch grows with the pattern, at most 4096
 * bytes here.  Hostile patterns of that length peaked at 12-54 KiB while
 * compiling (docs/design.md, "Least privilege and bounds").  The PMDA,
 * which lives for as long as pmcd, keeps a 1 MiB budget anyway
 * (pmda/agent/bounded_regex.h; the two sides share no code).
 *
 * Dialect: PCRE2 (Perl), '.' matches any byte and '$' only the very end,
 * as in POSIX ERE; the pattern must match the whole name (anchored at both
 * ends by PCRE2 itself, so "a)|(b" cannot escape the anchoring).
 */
#ifndef CLIENT_BOUNDED_REGEX_H
#define CLIENT_BOUNDED_REGEX_H

#include <stddef.h>

#define BOUNDED_REGEX_MAX		4096		/* pattern bytes */
#define BOUNDED_REGEX_MATCH_LIMIT	10000		/* backtracking steps per name */
#define BOUNDED_REGEX_DEPTH_LIMIT	1000
#define BOUNDED_REGEX_HEAP_KIB		256

struct bounded_regex;

/* NULL with the reason in why (PCRE2's message and offset, or the bound). */
struct bounded_regex *bounded_regex_whole(const char *text, char *why, size_t whylen);
void bounded_regex_free(struct bounded_regex *re);
/* 1: name matches as a whole; 0: it does not; -1: a limit stopped the
 * match (the caller takes it as no match). */
int bounded_regex_match(struct bounded_regex *re, const char *name);

#endif /* CLIENT_BOUNDED_REGEX_H */
