/*
 * unit.h - the few macros our C unit tests need.  Each test file is one
 * program; main() calls the test functions and returns unit_report().
 * A test that cannot run here (not root, no BPF) calls unit_skip(): the
 * runner counts it as skipped, never as passed, and CI counts a skip as a
 * failure.
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT_EXIT_SKIPPED	77	/* automake's convention */

static int unit_checks, unit_failures;

/* stdout is a buffered pipe under make: flush it first, so that a failure
 * prints beside the lines of the test that failed, not before all of them */
#define UNIT_FAIL(...) do { \
	unit_failures++; \
	fflush(stdout); \
	fprintf(stderr, __VA_ARGS__); \
} while (0)

#define CHECK(cond) do { \
	unit_checks++; \
	if (!(cond)) { \
		UNIT_FAIL("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_STR(got, want) do { \
	const char *g_ = (got), *w_ = (want); \
	unit_checks++; \
	if (g_ == NULL || strcmp(g_, w_) != 0) { \
		UNIT_FAIL("%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
			g_ ? g_ : "(null)", w_); \
	} \
} while (0)

#define CHECK_INT(got, want) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	unit_checks++; \
	if (g_ != w_) { \
		UNIT_FAIL("%s:%d: %s = %lld, want %lld\n", __FILE__, __LINE__, #got, g_, w_); \
	} \
} while (0)

static inline int
unit_report(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
	return unit_failures ? 1 : 0;
}

/* Stop the whole test program: it cannot run here, and says why. */
static inline void
unit_skip(const char *name, const char *why)
{
	printf("%s: skipped: %s\n", name, why);
	exit(UNIT_EXIT_SKIPPED);
}

#endif /* UNIT_H */
