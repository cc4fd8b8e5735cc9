/*
 * test_control_regex.c - a stored process regex costs bounded memory and
 * time (fuzz_control_parse's findings; issue 17): regexes that make glibc's
 * regcomp grow exponentially (stacked quantifiers, repeated repetition) or
 * regexec backtrack (back-references) are refused, every regex a user
 * would write for process names is accepted.
 */
#include <pcp/pmapi.h>
#include "unit.h"
#include "agent/control_parse.h"

/* What a store of text gets: 0 or the PCP error. */
static int
regex_sts(const char *text)
{
	regex_t	*re = NULL;
	int	sts = control_parse_regex(text, &re);

	if (sts == 0)
		control_free_regex(re);
	return sts;
}

static void
test_refused(void)
{
	char nested[80] = "";

	/* 776 MB and 2.2 s in regcomp before this check */
	CHECK_INT(regex_sts("a++++++++++++++++++++"), PM_ERR_BADSTORE);
	/* the fuzzer's: small, yet 13 s of regcomp under ASan */
	CHECK_INT(regex_sts("\x06*++++???????????????+++of"), PM_ERR_BADSTORE);
	CHECK_INT(regex_sts("a*?"), PM_ERR_BADSTORE);
	CHECK_INT(regex_sts("(ab){2}{3}"), PM_ERR_BADSTORE);
	CHECK_INT(regex_sts("((a{99}){99}){99}"), PM_ERR_BADSTORE);
	CHECK_INT(regex_sts("(a|aa|aaa|b){1000}"), PM_ERR_BADSTORE);
	/* minutes of regexec against a long command line of 'a's */
	CHECK_INT(regex_sts("(a*)*\\1b"), PM_ERR_BADSTORE);
	CHECK_INT(regex_sts("(x)\\9"), PM_ERR_BADSTORE);
	for (int i = 0; i < 33; i++)
		strcat(nested, "(");
	strcat(nested, "a");
	for (int i = 0; i < 33; i++)
		strcat(nested, ")");
	CHECK_INT(regex_sts(nested), PM_ERR_BADSTORE);
}

static void
test_accepted(void)
{
	static const char *const ok[] = {
		"^(sshd|pmcd)$", "^stackprof_(demo|short)$", "stackprof_demo 12\\.5$",
		"^symchurn_", "[[:alpha:]]+d", "a{2,5}", "^x{,3}$", "[]a]+", "[^]]*",
		"a\\+b", "\\{", "[\\1]", "(a|b){100}",
		"^(nginx|java|python3?|node|postgres|mysqld|redis-server)( |$)",
		"[[:digit:]]{1,5}\\.[[:digit:]]{1,5}", "(((((((((a)))))))))",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int sts = regex_sts(ok[i]);

		CHECK_INT(sts, 0);
		if (sts != 0)
			fprintf(stderr, "  refused: %s\n", ok[i]);
	}
	/* not ERE at all: still regcomp's call */
	CHECK_INT(regex_sts("("), PM_ERR_BADSTORE);
	CHECK_INT(regex_sts("a{3,1}"), PM_ERR_BADSTORE);
}

int
main(void)
{
	test_refused();
	test_accepted();
	return unit_report("test_control_regex");
}
