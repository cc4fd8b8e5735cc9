/*
 * control_parse.h - validate the text of a stackprof.control.* store.
 *
 * Pure functions with no PMDA state, so the unit tests can feed them every
 * hostile value.  Each returns 0 or a PCP error code (PM_ERR_*), never
 * changes *out on error.
 */
#ifndef CONTROL_PARSE_H
#define CONTROL_PARSE_H

#include <stddef.h>
#include <sys/types.h>
#include "lib/bounded_regex.h"

/* Longest text accepted for the regex or the PID list. */
#define CONTROL_TEXT_MAX	BOUNDED_REGEX_MAX
/* Most PIDs one store may name. */
#define CONTROL_PIDS_MAX	1024

/*
 * A value on its way to a control: what the control table (controls.c)
 * hands a setter.  u is the number of a u32 control, text the text of a
 * string control; a parser of the table may leave what it made of the text
 * in the other fields (or in u, e.g. an enum).  control_value_release frees
 * those.
 */
struct control_value {
	unsigned	u;
	const char	*text;
	struct bounded_regex *regex;	/* control_parse_regex */
	pid_t		*pids;		/* control_parse_pids */
	size_t		npids;
	char		why[160];	/* why a parser refused the text, or "" */
};
void control_value_release(struct control_value *v);

/* Decimal number in [lo, hi]; anything else (sign, junk, overflow) fails. */
int control_parse_uint(const char *text, unsigned lo, unsigned hi, unsigned *out);

/* "12, 34,56" -> {12,34,56}; "" -> none.  Each PID > 0, duplicates kept once.
 * On success *pids is malloc'd (NULL when n == 0). */
int control_parse_pids(const char *text, pid_t **pids, size_t *n);

/* A regex (PCRE2, bounded: bounded_regex.h) that compiles within its
 * bounds; "" is valid (no regex).  On success *re is the compiled regex
 * (free with control_free_regex), or NULL for "": the one place it is
 * compiled.  On error, why (whylen bytes) says what was wrong. */
int control_parse_regex(const char *text, struct bounded_regex **re, char *why, size_t whylen);
void control_free_regex(struct bounded_regex *re);

/* Most debuginfod servers one store may name. */
#define CONTROL_URLS_MAX	8

/* debuginfod servers: URLs separated by spaces, as libdebuginfod splits
 * them; "" (or spaces) is valid: none.  Each is http:// or https:// with a
 * host, no user or password (every client can read the value), no query
 * or fragment (libdebuginfod appends /buildid/...).  *n is how many. */
int control_parse_urls(const char *text, unsigned *n);

/* Heat map slices: must divide a second into whole milliseconds. */
int control_check_slots(unsigned slots);

/* How user stacks are walked: "auto" (unwind tables, else frame pointers)
 * or "fp" (frame pointers only), exactly; *mode gets enum sp_unwind_mode. */
int control_parse_unwind(const char *text, unsigned *mode);

#endif /* CONTROL_PARSE_H */
