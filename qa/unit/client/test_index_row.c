/*
 * test_index_row.c - a row of index.json read back from outside is kept
 * only if pmflame could have written it: each hostile row below (a path
 * that climbs out of the site, a time no calendar holds, a pid or count
 * that is not one, strings that are not text) is refused with the field
 * named, and the rows pmflame writes, with every optional field, pass.
 */
#include <cjson/cJSON.h>
#include "unit.h"
#include "publish/index_row.h"

static const char	good[] = "\"host\": \"vm\", \"profile\": \"bash\", \"pid\": 42,"
	" \"start\": 1767323045, \"end\": 1767323105, \"samples\": 900,"
	" \"path\": \"vm/bash.42/20260102T030405Z_20260102T030505Z-off-cpu\"";

/* index_row_read of "{good, extra}" (extra "" or ", ...") */
static int
read_row(const char *extra, struct site_entry *e, struct data_gap *g, const char **why)
{
	char	text[1024];
	cJSON	*item;
	int	sts;

	snprintf(text, sizeof(text), "{%s%s}", good, extra);
	if ((item = cJSON_Parse(text)) == NULL)
		return -2;
	sts = index_row_read(item, e, g, why);
	cJSON_Delete(item);	/* only the numbers are looked at after this */
	return sts;
}

static void
test_written_rows_pass(void)
{
	struct site_entry	e;
	struct data_gap		g[SITE_MAX_GAPS];
	const char		*why = NULL;

	CHECK_INT(read_row(", \"event\": \"off-cpu\", \"formats\": [\"svg\", \"pb.gz\", \"speedscope.json\"],"
			   " \"gaps\": [{\"start\": 1767323050, \"end\": 1767323060, \"why\": \"pmcd restarted\"}]",
			   &e, g, &why), 0);
	CHECK_INT(e.pid, 42);
	CHECK_INT(e.samples, 900);
	CHECK(e.start == 1767323045 && e.end == 1767323105);
	CHECK_INT(e.nexts, 3);
	CHECK_INT(e.ngaps, 1);
	CHECK(g[0].start == 1767323050 && g[0].end == 1767323060);
	CHECK_INT(read_row("", &e, g, &why), 0);	/* no event, formats or gaps */
	CHECK_INT(e.nexts, 0);
	CHECK_INT(e.ngaps, 0);
}

static void
test_hostile_rows_refused(void)
{
	static const struct {
		const char	*text, *field;
	} bad[] = {
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"../../../etc/passwd\"}", "path" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"/etc/passwd\"}", "path" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"vm/x/.hidden\"}", "path" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"vm//x\"}", "path" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"vm/x/\"}", "path" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"vm/x/a b\"}", "path" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"vm/x/a\\\"><script>\"}", "path" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"javascript:alert(1)\"}", "path" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": 7}", "path" },
		{ "{\"host\": \"vm\", \"profile\": \"x\"}", "path" },
		{ "{\"host\": 1, \"profile\": \"x\", \"path\": \"a/b\"}", "host" },
		{ "{\"host\": \"vm\", \"path\": \"a/b\"}", "host" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"end\": 1e300}", "start, end" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"start\": -5}", "start, end" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"start\": 9, \"end\": 8}", "start, end" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"end\": \"9\"}", "start, end" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"pid\": 1e20}", "pid" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"pid\": 4294967296}", "pid" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"pid\": 1.5}", "pid" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"pid\": -1}", "pid" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"samples\": 1e30}", "samples" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"samples\": 0.5}", "samples" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"event\": \"../x\"}", "event" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"event\": 3}", "event" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"formats\": [\"svg/../../x\"]}", "formats" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"formats\": [7]}", "formats" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"formats\": \"svg\"}", "formats" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"formats\": "
		  "[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]}", "formats" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"gaps\": [{\"start\": 1}]}", "gaps" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"gaps\": [{\"why\": \"w\", \"end\": 1e300}]}", "gaps" },
		{ "{\"host\": \"vm\", \"profile\": \"x\", \"path\": \"a/b\", \"gaps\": {}}", "gaps" },
		{ "[\"host\", \"vm\"]", "not an object" },
	};
	struct site_entry	e;
	struct data_gap		g[SITE_MAX_GAPS];
	const char		*why;
	size_t			i;
	cJSON			*item;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		if ((item = cJSON_Parse(bad[i].text)) == NULL) {
			fprintf(stderr, "row %zu does not parse\n", i);
			CHECK(0);
			continue;
		}
		CHECK_INT(index_row_read(item, &e, g, &why), -1);
		CHECK(why != NULL && strncmp(why, bad[i].field, strlen(bad[i].field)) == 0);
		if (why == NULL || strncmp(why, bad[i].field, strlen(bad[i].field)) != 0)
			fprintf(stderr, "row %zu: %s: why \"%s\"\n", i, bad[i].text, why ? why : "(null)");
		cJSON_Delete(item);
	}
}

int
main(void)
{
	test_written_rows_pass();
	test_hostile_rows_refused();
	return unit_report("test_index_row");
}
