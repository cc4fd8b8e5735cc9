/*
 * test_control_parse - every kind of hostile stackprof.control.* value is
 * refused with the right PCP error and leaves the output untouched.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/pmapi.h>
#include "unit.h"
#include <linux/types.h>
#include "controls/control_parse.h"
#include "stackprof.h"

static void
test_uint(void)
{
	unsigned	v = 7;

	CHECK_INT(control_parse_uint("99", 1, 1000, &v), 0);
	CHECK_INT(v, 99);
	CHECK_INT(control_parse_uint(" 1000 ", 1, 1000, &v), 0);
	CHECK_INT(v, 1000);
	v = 7;
	CHECK_INT(control_parse_uint("0", 1, 1000, &v), PM_ERR_BADSTORE);
	CHECK_INT(control_parse_uint("1001", 1, 1000, &v), PM_ERR_BADSTORE);
	CHECK_INT(control_parse_uint("99999999999999999999999", 1, 1000, &v), PM_ERR_BADSTORE);
	CHECK_INT(control_parse_uint("-5", 1, 1000, &v), PM_ERR_CONV);
	CHECK_INT(control_parse_uint("+5", 1, 1000, &v), PM_ERR_CONV);
	CHECK_INT(control_parse_uint("abc", 1, 1000, &v), PM_ERR_CONV);
	CHECK_INT(control_parse_uint("12abc", 1, 1000, &v), PM_ERR_CONV);
	CHECK_INT(control_parse_uint("", 1, 1000, &v), PM_ERR_CONV);
	CHECK_INT(control_parse_uint(NULL, 1, 1000, &v), PM_ERR_CONV);
	CHECK_INT(v, 7);	/* untouched by every failure */
}

static void
test_pids(void)
{
	pid_t	*pids = NULL;
	size_t	n = 99;
	char	*big;
	int	i;

	CHECK_INT(control_parse_pids("", &pids, &n), 0);
	CHECK_INT(n, 0);
	CHECK(pids == NULL);
	CHECK_INT(control_parse_pids(" 12, 34,12 ,56", &pids, &n), 0);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_INT(pids[0], 12);
		CHECK_INT(pids[1], 34);
		CHECK_INT(pids[2], 56);
	}
	free(pids);
	pids = NULL;
	n = 99;
	CHECK_INT(control_parse_pids("1,0", &pids, &n), PM_ERR_BADSTORE);
	CHECK_INT(control_parse_pids("-3", &pids, &n), PM_ERR_BADSTORE);
	CHECK_INT(control_parse_pids("1,,2", &pids, &n), PM_ERR_BADSTORE);
	CHECK_INT(control_parse_pids("1,x", &pids, &n), PM_ERR_BADSTORE);
	CHECK_INT(control_parse_pids("1,", &pids, &n), PM_ERR_BADSTORE);
	CHECK_INT(control_parse_pids("4294967296", &pids, &n), PM_ERR_BADSTORE);
	CHECK_INT(control_parse_pids("123456789012345678901234567890123", &pids, &n), PM_ERR_BADSTORE);
	CHECK(pids == NULL);
	CHECK_INT(n, 99);

	/* more distinct PIDs than one store may name */
	big = malloc(CONTROL_PIDS_MAX * 8 + 16);
	big[0] = '\0';
	for (i = 1; i <= CONTROL_PIDS_MAX + 1; i++)
		sprintf(big + strlen(big), "%s%d", i > 1 ? "," : "", i);
	CHECK_INT(control_parse_pids(big, &pids, &n), PM_ERR_BADSTORE);
	free(big);
}

/* The regex compiles once, here; what compiled matches as the filter will. */
static int
check_regex(const char *text)
{
	struct bounded_regex	*re = (struct bounded_regex *)&re;	/* a bad one must not be touched */
	char			why[160] = "";
	int			sts = control_parse_regex(text, &re, why, sizeof(why));

	if (sts < 0)
		CHECK(re == (struct bounded_regex *)&re);
	else if (text[0] == '\0')
		CHECK(re == NULL);
	else
		CHECK(re != NULL && bounded_regex_search(re, "stackprof_demo", 14) == 1);
	if (sts == 0)
		control_free_regex(re);
	if (sts < 0 && text != NULL)
		CHECK(why[0] != '\0');	/* the log says why */
	return sts;
}

/*
 * The patterns that cost glibc's regcomp seconds and gigabytes (issue 17:
 * "a" and 20 "+" took 2.2 s and 750 MB) are refused by the control, with
 * the reason logged; how fast is bench/latency's (section 3), and a match
 * that runs away stopping at its limit is qa/unit/lib/test_bounded_regex.c's.
 */
static void
test_regex_bombs(void)
{
	static const char	*bombs[] = {
		"a++++++++++++++++++++",			/* the issue's */
		"a++++++++++++++++++++++++++++++++++++++++",
		"((a{1,100}){1,100}){1,100}",			/* too large compiled */
		"(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
	};
	size_t			i;

	for (i = 0; i < sizeof(bombs) / sizeof(bombs[0]); i++)
		CHECK_INT(check_regex(bombs[i]), PM_ERR_BADSTORE);
}

static void
test_regex_and_slots(void)
{
	char	*big = malloc(CONTROL_TEXT_MAX + 2);

	CHECK_INT(check_regex(""), 0);
	CHECK_INT(check_regex("^stackprof_(demo|short)$"), 0);
	CHECK_INT(check_regex("("), PM_ERR_BADSTORE);
	CHECK_INT(check_regex("a{2,1}"), PM_ERR_BADSTORE);
	CHECK_INT(check_regex(NULL), PM_ERR_BADSTORE);
	memset(big, 'a', CONTROL_TEXT_MAX + 1);
	big[CONTROL_TEXT_MAX + 1] = '\0';
	CHECK_INT(check_regex(big), PM_ERR_BADSTORE);	/* one byte too long */
	free(big);

	CHECK_INT(control_check_slots(50), 0);
	CHECK_INT(control_check_slots(1), 0);
	CHECK_INT(control_check_slots(1000), 0);
	CHECK_INT(control_check_slots(0), PM_ERR_BADSTORE);
	CHECK_INT(control_check_slots(7), PM_ERR_BADSTORE);
	CHECK_INT(control_check_slots(2000), PM_ERR_BADSTORE);
}

/* auto or fp, exactly: anything else is refused and *mode untouched */
static void
test_unwind(void)
{
	static const char *const bad[] = {
		"", "AUTO", "Auto", " auto", "auto ", "fp\n", "frame", "dwarf", "autofp", "f", "0",
	};
	unsigned	mode = 77;

	CHECK_INT(control_parse_unwind("auto", &mode), 0);
	CHECK_INT(mode, SP_UNWIND_AUTO);
	CHECK_INT(control_parse_unwind("fp", &mode), 0);
	CHECK_INT(mode, SP_UNWIND_FP);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mode = 77;
		CHECK_INT(control_parse_unwind(bad[i], &mode), PM_ERR_BADSTORE);
		CHECK_INT(mode, 77);
	}
	CHECK_INT(control_parse_unwind(NULL, &mode), PM_ERR_BADSTORE);
	CHECK_INT(mode, 77);
}

/* How many URLs text holds, or the error; *n untouched on error. */
static int
urls(const char *text)
{
	unsigned	n = 77;
	int		sts = control_parse_urls(text, &n);

	if (sts < 0) {
		CHECK_INT(n, 77);
		return sts;
	}
	return (int)n;
}

static void
test_urls(void)
{
	char	*big = malloc(CONTROL_TEXT_MAX + 2), *p;

	CHECK_INT(urls(""), 0);
	CHECK_INT(urls("   "), 0);
	CHECK_INT(urls("https://debuginfod.debian.net"), 1);
	CHECK_INT(urls("  http://127.0.0.1:8002/  https://debuginfod.fedoraproject.org/ "), 2);
	CHECK_INT(urls("http://[::1]:8002/some/path"), 1);
	CHECK_INT(urls("http://a http://b http://c http://d http://e http://f http://g http://h"), 8);
	CHECK_INT(urls("http://a http://b http://c http://d http://e http://f http://g http://h "
		       "http://i"), PM_ERR_BADSTORE);		/* one too many */
	/* libdebuginfod would read a file: or any other scheme libcurl has */
	CHECK_INT(urls("file:///etc"), PM_ERR_BADSTORE);
	CHECK_INT(urls("http://a file:///var/lib/pcp"), PM_ERR_BADSTORE);
	CHECK_INT(urls("ftp://example.org"), PM_ERR_BADSTORE);
	CHECK_INT(urls("gopher://example.org"), PM_ERR_BADSTORE);
	CHECK_INT(urls("example.org"), PM_ERR_BADSTORE);	/* no scheme */
	CHECK_INT(urls("http://"), PM_ERR_BADSTORE);
	CHECK_INT(urls("http://:80/"), PM_ERR_BADSTORE);	/* no host */
	CHECK_INT(urls("http://a%00b"), PM_ERR_BADSTORE);
	/* readable by every client: no secrets */
	CHECK_INT(urls("https://user:secret@example.org"), PM_ERR_BADSTORE);
	CHECK_INT(urls("https://user@example.org"), PM_ERR_BADSTORE);
	/* libdebuginfod appends /buildid/...: a query or fragment breaks it */
	CHECK_INT(urls("https://example.org/?a=b"), PM_ERR_BADSTORE);
	CHECK_INT(urls("https://example.org/#x"), PM_ERR_BADSTORE);
	CHECK_INT(urls("http://a\thttp://b"), PM_ERR_BADSTORE);	/* only spaces part */
	CHECK_INT(urls("http://a\nhttp://b"), PM_ERR_BADSTORE);
	CHECK_INT(urls("http://a\x7f"), PM_ERR_BADSTORE);
	CHECK_INT(urls("http://exa mple.org"), PM_ERR_BADSTORE);	/* "mple.org" */
	CHECK_INT(urls(NULL), PM_ERR_BADSTORE);
	/* 4096 bytes in all, as the symbolizer takes; not one more */
	strcpy(big, "http://");
	for (p = big + 7; p < big + CONTROL_TEXT_MAX; p++)
		*p = (p - big) % 64 == 0 ? '.' : 'a';
	big[CONTROL_TEXT_MAX] = '\0';
	CHECK_INT(urls(big), 1);
	big[CONTROL_TEXT_MAX] = 'a';
	big[CONTROL_TEXT_MAX + 1] = '\0';
	CHECK_INT(urls(big), PM_ERR_BADSTORE);
	free(big);
}

int
main(void)
{
	test_uint();
	test_pids();
	test_regex_and_slots();
	test_regex_bombs();
	test_unwind();
	test_urls();
	return unit_report("test_control_parse");
}
