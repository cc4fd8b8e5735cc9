/*
 * fuzz_site.c - the index.json merge (client/publish/site.c) that runs when
 * a spooled index is delivered to a bucket whose own index.json may be
 * anything: input is NUL-separated newer and older index.json texts.
 * Beyond "no crash": the merged index.json parses, holds at most
 * SITE_MAX_ENTRIES profiles, each one index_row accepts (no hostile row
 * survives a merge), and index.html has one script, the constant
 * filter (emit/site_script.c), and no raw markup from the profiles (every
 * string is escaped).
 */
#include <cjson/cJSON.h>
#include "fuzz.h"
#include "common/membuf.h"
#include "emit/site_script.h"
#include "publish/index_row.h"
#include "publish/site.h"

/* html without its one filter script; NULL when that is not there once. */
static const char *
after_filter(const char *html)
{
	const char	*at = strstr(html, site_filter_script);

	if (at == NULL || strstr(at + 1, site_filter_script) != NULL)
		return NULL;
	return at + strlen(site_filter_script);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*part[2];
	char		*copy = fuzz_split(data, size, part, 2), *json;
	const char	*after, *why;
	struct membuf	html;
	cJSON		*root, *item;
	struct site_entry e;
	struct data_gap	g[SITE_MAX_GAPS];

	if (site_merge_text(part[0][0] ? part[0] : NULL, part[1], &json, &html) < 0)
		exit(2);	/* only out of memory */
	if ((root = cJSON_Parse(json)) == NULL ||
	    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "profiles")) > SITE_MAX_ENTRIES)
		abort();
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(root, "profiles"))
		if (index_row_read(item, &e, g, &why) < 0)
			abort();
	if ((after = after_filter(html.data)) == NULL || strstr(after, "<script") != NULL ||
	    strstr(html.data, "<img") != NULL)
		abort();
	/* before the filter: its own tag, once */
	if (strstr(html.data, "<script") != strstr(html.data, "<script>\n") ||
	    strstr(strstr(html.data, "<script") + 1, "<script") != NULL)
		abort();
	cJSON_Delete(root);
	free(json);
	membuf_free(&html);
	free(copy);
	return 0;
}
