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

/* Longest text accepted for the regex or the PID list. */
#define CONTROL_TEXT_MAX	4096
/* Most PIDs one store may name. */
#define CONTROL_PIDS_MAX	1024

/* Decimal number in [lo, hi]; anything else (sign, junk, overflow) fails. */
int control_parse_uint(const char *text, unsigned lo, unsigned hi, unsigned *out);

/* "12, 34,56" -> {12,34,56}; "" -> none.  Each PID > 0, duplicates kept once.
 * On success *pids is malloc'd (NULL when n == 0). */
int control_parse_pids(const char *text, pid_t **pids, size_t *n);

/* An extended POSIX regex that compiles; "" is valid (no regex). */
int control_check_regex(const char *text);

/* Heat map slices: must divide a second into whole milliseconds. */
int control_check_slots(unsigned slots);

#endif /* CONTROL_PARSE_H */
