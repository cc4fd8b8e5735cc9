/*
 * test_bounded_regex.c - the one bounded regex (lib/bounded_regex.h) that
 * the PMDA's process filter and pmflame's --process both use: what users
 * wrote for POSIX ERE keeps its meaning, a backtracking pattern stops at
 * the match limit (-1, not a hang), a pattern too large to compile is
 * refused with PCRE2's reason, and BOUNDED_REGEX_WHOLE's anchoring cannot
 * be escaped with parentheses.
 */
#include <string.h>
#include "unit.h"
#include "lib/bounded_regex.h"

static int
search(const char *pattern, unsigned flags, const char *subject)
{
	char			why[160];
	struct bounded_regex	*re = bounded_regex_compile(pattern, flags, why, sizeof(why));
	int			rc;

	if (re == NULL) {
		fprintf(stderr, "%s: %s\n", pattern, why);
		return -2;
	}
	rc = bounded_regex_search(re, subject, strlen(subject));
	bounded_regex_free(re);
	return rc;
}

static void
test_dialect(void)
{
	static const struct { const char *re, *subject; int match; } cases[] = {
		{ "^(nginx|java)$", "java", 1 },
		{ "^(nginx|java)$", "javac", 0 },
		{ "[[:digit:]]+$", "worker 12", 1 },
		{ "app\\.py", "python3 /srv/app.py", 1 },
		{ "app\\.py", "python3 /srv/appxpy", 0 },
		{ "a.b", "a\nb", 1 },		/* '.' matches any byte, as in ERE */
		{ "b$", "ab\n", 0 },		/* '$' only at the very end */
		{ "(ab)\\1", "abab", 1 },	/* back-references, bounded */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_INT(search(cases[i].re, 0, cases[i].subject), cases[i].match);
}

/* Anchored at both ends by PCRE2: "java" is not "javac", and an
 * unbalanced pattern is refused rather than read as "jav" or "x". */
static void
test_whole(void)
{
	char	why[160];

	CHECK_INT(search("jav|x", BOUNDED_REGEX_WHOLE, "javac"), 0);
	CHECK_INT(search("jav|x", BOUNDED_REGEX_WHOLE, "x"), 1);
	CHECK_INT(search("jav|x", BOUNDED_REGEX_WHOLE, "jav"), 1);
	CHECK_INT(search("jav|x", 0, "javac"), 1);		/* unanchored: somewhere */
	CHECK_INT(search("[[:alpha:]]+[[:digit:]]", BOUNDED_REGEX_WHOLE, "worker7"), 1);
	CHECK_INT(search("[[:alpha:]]+[[:digit:]]", BOUNDED_REGEX_WHOLE, "worker7x"), 0);
	CHECK(bounded_regex_compile("jav)|(x", BOUNDED_REGEX_WHOLE, why, sizeof(why)) == NULL);
	CHECK(strstr(why, "at offset") != NULL);
}

/* An exponential backtracker answers -1 at the match limit, and a short
 * pattern still matches what it should afterwards. */
static void
test_match_limit(void)
{
	char			why[160], subject[64];
	struct bounded_regex	*re;
	unsigned		flags[] = { 0, BOUNDED_REGEX_WHOLE };

	memset(subject, 'a', 40);
	strcpy(subject + 40, "!");
	for (size_t i = 0; i < 2; i++) {
		re = bounded_regex_compile(flags[i] ? "(a|aa)+" : "^(a|aa)+$", flags[i],
					   why, sizeof(why));
		CHECK(re != NULL);
		if (re == NULL)
			continue;
		CHECK_INT(bounded_regex_search(re, subject, strlen(subject)), -1);
		CHECK_INT(bounded_regex_search(re, "aaaa", 4), 1);
		bounded_regex_free(re);
	}
}

/* Refused at compile time, with the reason: issue 17's pattern, one that
 * would expand to 970,299 a's, and one longer than BOUNDED_REGEX_MAX. */
static void
test_refused(void)
{
	char	why[160], *big = malloc(BOUNDED_REGEX_MAX + 2);

	CHECK(bounded_regex_compile("a++++++++++++++++++++", 0, why, sizeof(why)) == NULL);
	CHECK(strstr(why, "quantifier does not follow a repeatable item") != NULL);
	CHECK(bounded_regex_compile("(?:(?:a{99}){99}){99}", BOUNDED_REGEX_WHOLE, why, sizeof(why)) == NULL);
	CHECK(strstr(why, "regular expression is too large") != NULL);
	if (big == NULL)
		return;
	memset(big, 'a', BOUNDED_REGEX_MAX + 1);
	big[BOUNDED_REGEX_MAX + 1] = '\0';
	CHECK(bounded_regex_compile(big, 0, why, sizeof(why)) == NULL);
	CHECK(strstr(why, "longer than 4096 bytes") != NULL);
	big[BOUNDED_REGEX_MAX] = '\0';				/* exactly the bound: fine */
	CHECK_INT(search(big, BOUNDED_REGEX_WHOLE, big), 1);
	free(big);
	bounded_regex_free(NULL);				/* as free(NULL) */
}

int
main(void)
{
	test_dialect();
	test_whole();
	test_match_limit();
	test_refused();
	return unit_report("test_bounded_regex");
}
