/*
 * fuzz_site.c - the index.json merge (client/publish/site.c) that runs when
 * a spooled index is delivered to a bucket whose own index.json may be
 * anything: input is NUL-separated newer and older index.json texts.
 * Beyond "no crash": the merged index.json parses, holds at most
 * SITE_MAX_ENTRIES profiles, and index.html has no script and no raw
 * markup from the profiles (every string is escaped).
 */
#include <cjson/cJSON.h>
#include "fuzz.h"
#include "common/membuf.h"
#include "publish/site.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*part[2];
	char		*copy = fuzz_split(data, size, part, 2), *json;
	struct membuf	html;
	cJSON		*root;

	if (site_merge_text(part[0][0] ? part[0] : NULL, part[1], &json, &html) < 0)
		exit(2);	/* only out of memory */
	if ((root = cJSON_Parse(json)) == NULL ||
	    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "profiles")) > SITE_MAX_ENTRIES)
		abort();
	if (strstr(html.data, "<script") != NULL || strstr(html.data, "<img") != NULL)
		abort();
	cJSON_Delete(root);
	free(json);
	membuf_free(&html);
	free(copy);
	return 0;
}
