/*
 * test_heatmap_format.c - "--format" lists: heatmap taken out, the rest
 * kept in order for the flame graph formats.
 */
#include <stdlib.h>
#include "unit.h"
#include "source/source_heatmap.h"

static void
check(const char *list, bool want, const char *want_rest)
{
	char	*rest = (char *)"unset";
	bool	got = heatmap_format_take(list, &rest);

	CHECK_INT(got, want);
	if (want_rest == NULL)
		CHECK(rest == NULL);
	else
		CHECK_STR(rest, want_rest);
	free(rest);
}

int
main(void)
{
	check("heatmap", true, NULL);
	check("svg", false, "svg");
	check("json,heatmap,svg", true, "json,svg");
	check("heatmap,heatmap", true, NULL);
	check(",heatmap,", true, NULL);
	check("heatmaps,folded", false, "heatmaps,folded");
	check("", false, NULL);
	return unit_report("test_heatmap_format");
}
