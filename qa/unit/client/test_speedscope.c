/*
 * test_speedscope.c - pmflame's speedscope file, byte for byte for a
 * small profile, then read back with cJSON as speedscope's importer reads
 * it: one sampled profile per root, frame-index stacks root first, weights
 * that sum to endValue (the root's total), units from the event, hostile
 * names as plain data, and empty profiles.  (qa/221 validates the files
 * against speedscope's own schema, and qa/223 opens them in speedscope.)
 */
#include <stdlib.h>
#include "unit.h"
#include "export_input.h"

static const char process_view[] =
	"proc;[t] main;main;foo;bar 3\nproc;[t] main;main;foo 2\n"
	"proc;[t] main;main;baz 1\nproc;[t] worker;start;foo;foo;foo 4\n";

static void
test_bytes(void)
{
	struct membuf	out;

	CHECK_INT(render_export(emit_speedscope, process_view, "proc", 0, NULL, &out), 0);
	CHECK_STR(out.data,
		"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		"\"shared\":{\"frames\":[{\"name\":\"proc\"},{\"name\":\"[t] main\"},"
		"{\"name\":\"main\"},{\"name\":\"baz\"},{\"name\":\"foo\"},{\"name\":\"bar\"},"
		"{\"name\":\"[t] worker\"},{\"name\":\"start\"}]},"
		"\"profiles\":[{\"type\":\"sampled\",\"name\":\"proc\",\"unit\":\"microseconds\","
		"\"startValue\":0,\"endValue\":100000,"
		"\"samples\":[[0,1,2,3],[0,1,2,4],[0,1,2,4,5],[0,6,7,4,4,4]],"
		"\"weights\":[10000,20000,30000,40000]}],"
		"\"name\":\"proc on web01\",\"activeProfileIndex\":0,"
		"\"exporter\":\"pmflame (pcp-stackprof)\"}\n");
	membuf_free(&out);
}

/* A Python frame's qualname, file and line go in its frame's fields. */
static void
test_python_frames(void)
{
	struct membuf	out;

	CHECK_INT(render_export(emit_speedscope, "py;serve (/a/app.py:42);x (b.py) 1\n", "py", 0,
				NULL, &out), 0);
	CHECK(out.data && strstr(out.data, "{\"name\":\"serve\",\"file\":\"/a/app.py\",\"line\":42},"
					   "{\"name\":\"x\",\"file\":\"b.py\"}"));
	membuf_free(&out);
}

/* Sum of a profile's weights, and of those whose stack holds frame f. */
static void
sum_weights(const cJSON *profile, int f, double *all, double *with_f)
{
	const cJSON	*samples = cJSON_GetObjectItem(profile, "samples");
	const cJSON	*weights = cJSON_GetObjectItem(profile, "weights");
	int		i, n = cJSON_GetArraySize(samples);

	*all = *with_f = 0;
	CHECK_INT(cJSON_GetArraySize(weights), n);
	for (i = 0; i < n; i++) {
		const cJSON	*stack = cJSON_GetArrayItem(samples, i), *frame;
		double		w = cJSON_GetArrayItem(weights, i)->valuedouble;
		int		holds = 0;

		cJSON_ArrayForEach(frame, stack)
			holds |= frame->valueint == f;
		*all += w;
		*with_f += holds ? w : 0;
	}
}

static int
frame_index(const cJSON *doc, const char *name)
{
	const cJSON	*frames = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "shared"), "frames");
	int		i;

	for (i = 0; i < cJSON_GetArraySize(frames); i++)
		if (strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(frames, i), "name")->valuestring,
			   name) == 0)
			return i;
	return -1;
}

/* The host view is one profile rooted at Total; a forest (no host view)
 * is one profile per process.  Weights sum to endValue, exactly. */
static void
test_profiles_and_totals(void)
{
	cJSON	*doc = export_json(emit_speedscope, "Total;[p] a;[t] a;x;y 5\nTotal;[p] a;[t] b;x 2\n"
				     "Total;[p] b;[t] b;[k] z 7\n", "Total", NULL);
	double	all, with_x;

	CHECK(doc != NULL);
	if (doc != NULL) {
		const cJSON *profiles = cJSON_GetObjectItem(doc, "profiles");

		CHECK_INT(cJSON_GetArraySize(profiles), 1);
		sum_weights(cJSON_GetArrayItem(profiles, 0), frame_index(doc, "x"), &all, &with_x);
		CHECK(all == 140000 && with_x == 70000);
		CHECK(cJSON_GetObjectItem(cJSON_GetArrayItem(profiles, 0), "endValue")->valuedouble == all);
	}
	cJSON_Delete(doc);
	doc = export_json(emit_speedscope, "a;[t] a;x 5\nb;[t] b;x 7\nb;[t] b;y 1\n", "a", NULL);
	CHECK(doc != NULL);
	if (doc != NULL) {
		const cJSON *profiles = cJSON_GetObjectItem(doc, "profiles");

		CHECK_INT(cJSON_GetArraySize(profiles), 2);
		CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(profiles, 1), "name")->valuestring, "b");
		sum_weights(cJSON_GetArrayItem(profiles, 1), frame_index(doc, "x"), &all, &with_x);
		CHECK(all == 80000 && with_x == 70000);
	}
	cJSON_Delete(doc);
}

/* A frame's kind is its "file", not a prefix of its name; the program's
 * frames and unresolved ones have no file. */
static void
test_frame_kinds(void)
{
	cJSON	*doc = export_json(emit_speedscope, "p;[t] p;main;[l] read;[k] sys_read 3\n"
				     "p;[t] p;main;[/usr/lib/x.so] 1\n", "p", NULL);
	const cJSON *frames = doc ? cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "shared"), "frames") : NULL;
	static const char *const want[][2] = {
		{ "read", "[shared libraries]" }, { "sys_read", "[kernel.kallsyms]" },
		{ "main", NULL }, { "[/usr/lib/x.so]", NULL },
	};

	CHECK(doc != NULL);
	for (size_t k = 0; doc && k < sizeof(want) / sizeof(want[0]); k++) {
		int i = frame_index(doc, want[k][0]);
		const cJSON *file = i < 0 ? NULL : cJSON_GetObjectItem(cJSON_GetArrayItem(frames, i), "file");

		CHECK(i >= 0);
		if (want[k][1])
			CHECK_STR(file ? file->valuestring : NULL, want[k][1]);
		else
			CHECK(i >= 0 && file == NULL);
	}
	CHECK(doc == NULL || frame_index(doc, "[l] read") < 0);
	cJSON_Delete(doc);
}

/* Not a time event: weights are samples, unit "none". */
static void
test_counted_event(void)
{
	cJSON	*doc = export_json(emit_speedscope, "p;f 3\np;g 2\n", "p", "page-fault");
	cJSON	*profile = doc ? cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "profiles"), 0) : NULL;

	CHECK(profile != NULL);
	if (profile != NULL) {
		CHECK_STR(cJSON_GetObjectItem(profile, "unit")->valuestring, "none");
		CHECK(cJSON_GetObjectItem(profile, "endValue")->valuedouble == 5);
	}
	cJSON_Delete(doc);
}

/* Names are JSON data: quotes, backslashes, markup survive as text;
 * control characters and invalid UTF-8 become U+FFFD. */
static void
test_hostile_names(void)
{
	cJSON	*doc = export_json(emit_speedscope, "p\"</script>;a\"b\\c\x01\xff;\\\" 1\n",
				       "p\"</script>", NULL);

	CHECK(doc != NULL);
	if (doc != NULL) {
		CHECK(frame_index(doc, "p\"</script>") == 0);
		CHECK(frame_index(doc, "a\"b\\c\xef\xbf\xbd\xef\xbf\xbd") == 1);
		CHECK(frame_index(doc, "\\\"") == 2);
		CHECK_STR(cJSON_GetObjectItem(doc, "name")->valuestring, "p\"</script> on web01");
	}
	cJSON_Delete(doc);
}

static void
test_empty(void)
{
	struct membuf	out;

	CHECK_INT(render_export(emit_speedscope, "", "idle", 0, NULL, &out), 0);
	CHECK_STR(out.data,
		"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		"\"shared\":{\"frames\":[]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"idle\","
		"\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":0,\"samples\":[],"
		"\"weights\":[]}],\"name\":\"idle on web01\",\"activeProfileIndex\":0,"
		"\"exporter\":\"pmflame (pcp-stackprof)\"}\n");
	membuf_free(&out);
}

int
main(void)
{
	test_bytes();
	test_python_frames();
	test_profiles_and_totals();
	test_frame_kinds();
	test_counted_event();
	test_hostile_names();
	test_empty();
	return unit_report("test_speedscope");
}
