/*
 * unit.h - the few macros our C unit tests need.  Each test file is one
 * program; main() calls the test functions and returns unit_report().
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_checks, unit_failures;

#define CHECK(cond) do { \
	unit_checks++; \
	if (!(cond)) { \
		unit_failures++; \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_STR(got, want) do { \
	const char *g_ = (got), *w_ = (want); \
	unit_checks++; \
	if (g_ == NULL || strcmp(g_, w_) != 0) { \
		unit_failures++; \
		fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
			g_ ? g_ : "(null)", w_); \
	} \
} while (0)

#define CHECK_INT(got, want) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	unit_checks++; \
	if (g_ != w_) { \
		unit_failures++; \
		fprintf(stderr, "%s:%d: %s = %lld, want %lld\n", __FILE__, __LINE__, #got, g_, w_); \
	} \
} while (0)

static inline int
unit_report(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
	return unit_failures ? 1 : 0;
}

#endif /* UNIT_H */
