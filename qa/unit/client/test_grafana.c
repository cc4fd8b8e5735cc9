/*
 * test_grafana.c - pmflame's Grafana flame-graph frame, byte for byte for
 * a small profile, then read back with cJSON the way the panel walks it:
 * rows in depth-first order, parents found from the levels, every value
 * equal to its self plus its children's values, one root (an "all" row
 * above a forest), units from the event, hostile names as plain data.
 * (qa/222 re-sums the files pmflame writes.)
 */
#include <stdlib.h>
#include "unit.h"
#include "export_input.h"

static void
test_bytes(void)
{
	struct membuf	out;

	CHECK_INT(render_export(emit_grafana, "p;[t] t;a;b 3\np;[t] t;a 2\np;[t] t;c 1\n", "p", 0,
				NULL, &out), 0);
	CHECK_STR(out.data,
		"[{\"schema\":{\"name\":\"p\",\"meta\":{\"preferredVisualisationType\":\"flamegraph\"},"
		"\"fields\":[{\"name\":\"level\",\"type\":\"number\",\"typeInfo\":{\"frame\":\"int64\"}},"
		"{\"name\":\"value\",\"type\":\"number\",\"typeInfo\":{\"frame\":\"int64\"},"
		"\"config\":{\"unit\":\"\xc2\xb5s\"}},"
		"{\"name\":\"self\",\"type\":\"number\",\"typeInfo\":{\"frame\":\"int64\"},"
		"\"config\":{\"unit\":\"\xc2\xb5s\"}},"
		"{\"name\":\"label\",\"type\":\"string\",\"typeInfo\":{\"frame\":\"string\"}}]},"
		"\"data\":{\"values\":[[0,1,2,3,2],[60000,60000,50000,30000,10000],"
		"[0,0,20000,30000,10000],[\"p\",\"[t] t\",\"a\",\"b\",\"c\"]]}}]\n");
	membuf_free(&out);
}

static const cJSON *
column(const cJSON *doc, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetArrayItem(doc, 0), "data"), "values"), i);
}

/* Rebuild parents from levels (depth-first order), then check value ==
 * self + children's values for every row; returns the root's value and
 * the sum of the values of the rows labelled label (0 if none). */
static double
resum(const cJSON *doc, const char *label, double *labelled)
{
	const cJSON	*level = column(doc, 0), *value = column(doc, 1);
	const cJSON	*self = column(doc, 2), *name = column(doc, 3);
	int		i, n = cJSON_GetArraySize(level), stack[64], roots = 0;
	double		*sum = calloc((size_t)n + 1, sizeof(*sum));

	*labelled = 0;
	for (i = 0; i < n && sum; i++) {
		int d = cJSON_GetArrayItem(level, i)->valueint;

		CHECK(d >= 0 && d < 64 &&
		      (i == 0 ? d == 0 : d <= cJSON_GetArrayItem(level, i - 1)->valueint + 1));
		if (d < 0 || d >= 64)
			break;
		stack[d] = i;
		roots += d == 0;
		sum[i] += cJSON_GetArrayItem(self, i)->valuedouble;
		if (d > 0)
			sum[stack[d - 1]] += cJSON_GetArrayItem(value, i)->valuedouble;
		if (strcmp(cJSON_GetArrayItem(name, i)->valuestring, label) == 0)
			*labelled += cJSON_GetArrayItem(value, i)->valuedouble;
	}
	CHECK_INT(roots, 1);
	for (i = 0; i < n && sum; i++)
		CHECK(sum[i] == cJSON_GetArrayItem(value, i)->valuedouble);
	free(sum);
	return n ? cJSON_GetArrayItem(value, 0)->valuedouble : 0;
}

static void
test_resum(void)
{
	cJSON	*doc = export_json(emit_grafana, "Total;[p] a;[t] a;x;y 5\nTotal;[p] a;[t] b;x 2\n"
				  "Total;[p] b;[t] b;[k] z 7\n", "Total", NULL);
	double	x;

	CHECK(doc != NULL);
	if (doc != NULL)
		CHECK(resum(doc, "x", &x) == 140000 && x == 70000);
	cJSON_Delete(doc);
}

/* Several processes without the host view: an "all" row holds them. */
static void
test_forest(void)
{
	cJSON	*doc = export_json(emit_grafana, "a;[t] a;x 5\nb;[t] b;x 7\nb;[t] b;y 1\n", "a", NULL);
	double	x;

	CHECK(doc != NULL);
	if (doc != NULL) {
		CHECK_STR(cJSON_GetArrayItem(column(doc, 3), 0)->valuestring, "all");
		CHECK_INT(cJSON_GetArrayItem(column(doc, 0), 1)->valueint, 1);
		CHECK(resum(doc, "x", &x) == 130000 && x == 120000);
	}
	cJSON_Delete(doc);
}

static void
test_counted_event(void)
{
	cJSON	*doc = export_json(emit_grafana, "p;f 3\np;g 2\n", "p", "page-fault");
	double	f;

	CHECK(doc != NULL);
	if (doc != NULL) {
		const cJSON *fields = cJSON_GetObjectItem(cJSON_GetObjectItem(
			cJSON_GetArrayItem(doc, 0), "schema"), "fields");

		CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(fields, 1),
			  "config"), "unit")->valuestring, "short");
		CHECK(resum(doc, "f", &f) == 5 && f == 3);
	}
	cJSON_Delete(doc);
}

static void
test_hostile_names(void)
{
	cJSON	*doc = export_json(emit_grafana, "p\"</script>;a\"b\\c\x01\xff 1\n", "p\"</script>", NULL);

	CHECK(doc != NULL);
	if (doc != NULL) {
		CHECK_STR(cJSON_GetArrayItem(column(doc, 3), 0)->valuestring, "p\"</script>");
		CHECK_STR(cJSON_GetArrayItem(column(doc, 3), 1)->valuestring,
			  "a\"b\\c\xef\xbf\xbd\xef\xbf\xbd");
		CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(doc, 0),
			  "schema"), "name")->valuestring, "p\"</script>");
	}
	cJSON_Delete(doc);
}

static void
test_empty(void)
{
	cJSON	*doc = export_json(emit_grafana, "", "idle", NULL);

	CHECK(doc != NULL);
	if (doc != NULL)
		CHECK_INT(cJSON_GetArraySize(column(doc, 0)), 0);
	cJSON_Delete(doc);
}

int
main(void)
{
	test_bytes();
	test_resum();
	test_forest();
	test_counted_event();
	test_hostile_names();
	test_empty();
	return unit_report("test_grafana");
}
