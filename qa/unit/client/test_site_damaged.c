/*
 * test_site_damaged.c - an index.json with rows no profile has (read back
 * from a damaged disk or a bucket anyone may write), as fuzz_site and a
 * hostile bucket found them: each such row is dropped, not clamped and
 * kept, and the rows beside it stay; an impossible time prints as "?",
 * and nothing converts a double that does not fit (UBSan stopped on
 * "outside the range of representable values").
 */
#include <stdlib.h>
#include "unit.h"
#include "common/membuf.h"
#include "common/util.h"
#include "publish/site.h"

static void
test_hostile_rows_dropped(void)
{
	const char	*older = "{\"version\": 1, \"profiles\": ["
		"{\"host\": \"vm\", \"profile\": \"bash\", \"pid\": 1e20, \"start\": 1e300,"
		" \"end\": -5, \"samples\": 1e30, \"path\": \"vm/bash.1/x\", \"formats\": [\"svg\"]},"
		"{\"host\": \"vm\", \"profile\": \"bash\", \"start\": 1, \"end\": 1e300,"
		" \"path\": \"vm/bash.2/y\", \"formats\": [\"svg\"]},"
		"{\"host\": \"vm\", \"profile\": \"passwd\", \"path\": \"../../../etc/passwd\","
		" \"formats\": [\"svg\"]},"
		"{\"host\": \"vm\", \"profile\": \"sh\", \"pid\": 7, \"start\": 1767323045,"
		" \"end\": 1767323105, \"samples\": 3, \"path\": \"vm/sh.7/z\", \"formats\": [\"svg\"]}]}";
	const char	*newer = "{\"profiles\": [{\"host\": \"vm\", \"profile\": \"x\","
		" \"path\": \"vm/x/w\", \"formats\": [\"../../x\"]}]}";
	char		*json;
	struct membuf	html;

	CHECK_INT(site_merge_text(newer, older, &json, &html), 0);
	CHECK(strstr(json, "vm/sh.7/z") != NULL);	/* the good row stays */
	CHECK(strstr(json, "vm/bash") == NULL);		/* the rest are gone */
	CHECK(strstr(json, "passwd") == NULL && strstr(json, "vm/x/w") == NULL);
	CHECK(strstr(html.data, "<p>1 profile, ") != NULL);
	CHECK(strstr(html.data, "passwd") == NULL && strstr(html.data, "bash") == NULL);
	CHECK(strstr(html.data, "<td>2026-01-02 03:04:05 &#8211; 03:05:05</td><td>vm</td>"
			 "<td>sh (7)</td>") != NULL);
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
	test_hostile_rows_dropped();
	test_times_no_calendar_holds();
	return unit_report("test_site_damaged");
}
