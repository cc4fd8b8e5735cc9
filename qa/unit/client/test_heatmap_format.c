/*
 * test_heatmap_format.c - "heatmap" is a --format word like the others: a
 * row of the format table, kept in the order given with the flame graph
 * formats, once however often it is named; only its row wants heat maps.
 */
#include <stdlib.h>
#include "unit.h"
#include "publish/output.h"

/* Parse list; want: the format names joined by ',' ("" when refused). */
static void
check(const char *list, const char *want, bool heat, bool flame)
{
	struct output_context	c = { 0 };
	char			err[256], got[128] = "";
	size_t			i;

	if (output_formats_parse(list, c.formats, &c.nformats, err, sizeof(err)) == 0)
		for (i = 0; i < c.nformats; i++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
				 i ? "," : "", c.formats[i]->name);
	CHECK_STR(got, want);
	if (want[0]) {
		CHECK_INT(output_wants(&c, PROFILE_HEATMAP), heat);
		CHECK_INT(output_wants(&c, PROFILE_FLAME), flame);
	}
}

int
main(void)
{
	const struct output_format	*f = output_format_find("heatmap");

	check("heatmap", "heatmap", true, false);
	check("svg", "svg", false, true);
	check("json,heatmap,svg", "json,heatmap,svg", true, true);
	check("heatmap,heatmap", "heatmap", true, false);
	check(",heatmap,", "heatmap", true, false);
	check("heatmaps,folded", "", false, false);	/* unknown word: refused */
	check("", "", false, false);
	CHECK(f != NULL);
	if (f != NULL) {
		CHECK_STR(f->ext, "svg");
		CHECK_STR(f->content_type, "image/svg+xml");
	}
	CHECK(strstr(output_format_names(), "heatmap") != NULL);
	return unit_report("test_heatmap_format");
}
