/*
 * test_site_damaged.c - an index.json with numbers no profile has (read
 * back from a damaged disk or a bucket anyone may write), as fuzz_site
 * found it: the rows are kept, each impossible number becomes 0, an
 * impossible time prints as "?", and nothing converts a double that does
 * not fit (UBSan stopped on "outside the range of representable values").
 */
#include <stdlib.h>
#include "unit.h"
#include "common/membuf.h"
#include "common/util.h"
#include "publish/site.h"

static void
test_numbers_out_of_range(void)
{
	const char	*older = "{\"version\": 1, \"profiles\": [{\"host\": \"vm\", \"profile\": \"bash\","
		"\"pid\": 1e20, \"start\": 1e300, \"end\": -5, \"samples\": 1e30,"
		"\"path\": \"vm/bash.1/x\", \"formats\": [\"svg\"]}]}";
	char		*json;
	struct membuf	html;

	CHECK_INT(site_merge_text(NULL, older, &json, &html), 0);
	CHECK(strstr(json, "\"path\":\t\"vm/bash.1/x\"") != NULL);	/* the row is kept */
	CHECK(strstr(json, "\"pid\":\t0,") != NULL);
	CHECK(strstr(json, "\"samples\":\t0,") != NULL);
	CHECK(strstr(json, "\"end\":\t0,") != NULL);
	CHECK(strstr(html.data, "<td>? &#8211; 00:00:00</td><td>vm</td><td>bash</td>"
			 "<td></td><td class=\"n\">0</td>") != NULL);
	free(json);
	membuf_free(&html);
}

static void
test_times_no_calendar_holds(void)
{
	char	buf[64];

	utc_strftime(1e19, "%Y-%m-%d", buf, sizeof(buf));
	CHECK_STR(buf, "?");
	utc_strftime(-1e19, "%Y-%m-%d", buf, sizeof(buf));
	CHECK_STR(buf, "?");
	utc_strftime(0.0 / 0.0, "%Y-%m-%d", buf, sizeof(buf));
	CHECK_STR(buf, "?");
	utc_strftime(253402300799.0, "%Y-%m-%d", buf, sizeof(buf));
	CHECK_STR(buf, "9999-12-31");
	utc_strftime(1796077028.8, "%Y-%m-%d %H:%M:%S", buf, sizeof(buf));
	CHECK_STR(buf, "2026-11-30 22:17:08");
}

int
main(void)
{
	test_numbers_out_of_range();
	test_times_no_calendar_holds();
	return unit_report("test_site_damaged");
}
