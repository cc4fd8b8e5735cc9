/*
 * test_json.c - ProfileTracing JSON, byte for byte, for hand-written
 * profiles: recursion and shared prefixes in one process with two threads,
 * the host view, names that need escaping, exact 64-bit values, and an
 * empty profile.  Then the same output read back with cJSON, field by
 * field, as a dashboard would.
 */
#include <stdlib.h>
#include <cjson/cJSON.h>
#include "unit.h"
#include "emit/emit.h"
#include "flame_input.h"

static char *
json_of(const char *folded)
{
	struct flame_tree	*t = tree_from(folded);
	struct membuf		out;
	char			*s;

	membuf_init(&out);
	if (t == NULL || emit_json(t, NULL, &out) != 0) {
		flame_tree_free(t);
		membuf_free(&out);
		return NULL;
	}
	flame_tree_free(t);
	s = strdup(out.data);
	membuf_free(&out);
	return s;
}

static void
check_json(const char *folded, const char *want)
{
	char	*got = json_of(folded);

	CHECK_STR(got, want);
	free(got);
}

static void
test_process_view(void)
{
	check_json(
		"proc;[t] main;main;foo;bar 3\n"
		"proc;[t] main;main;foo 2\n"
		"proc;[t] main;main;baz 1\n"
		"proc;[t] worker;start;foo;foo;foo 4\n",
		"{\"OPT_STATUS\":\"SUCCESS\",\"DESCRIPTION\":\"\",\"result\":{"
		"\"functions\":[\"proc\",\"[t] main\",\"main\",\"baz\",\"foo\",\"bar\","
		"\"[t] worker\",\"start\"],"
		"\"function_types\":[\"P\",\"T\",\"A\",\"A\",\"A\",\"A\",\"T\",\"A\"],"
		"\"function_values\":{\"columns\":[\"self_value\",\"total_value\"],"
		"\"values\":[[0,100000],[0,60000],[0,60000],[10000,10000],[60000,90000],"
		"[30000,30000],[0,40000],[0,40000]]},"
		"\"node_values\":{\"columns\":[\"function_id\",\"parent_node_id\","
		"\"self_value\",\"total_value\"],"
		"\"values\":[[0,-1,0,100000],[1,0,0,60000],[2,1,0,60000],[3,2,10000,10000],"
		"[4,2,20000,50000],[5,4,30000,30000],[6,0,0,40000],[7,6,0,40000],"
		"[4,7,0,40000],[4,8,0,40000],[4,9,40000,40000]]},\"profile_event_type\":\"on-cpu\",\"value_unit\":\"us\"},\"debug\":null}\n");
}

static void
test_host_view(void)
{
	check_json(
		"Total;[p] nginx;[t] nginx;[k] do_syscall_64 2\n"
		"Total;[p] nginx;[t] worker;[l] write;[k] ksys_write 3\n"
		"Total;[p] redis;[t] redis;[unknown] 0x0000000000001234 1\n",
		"{\"OPT_STATUS\":\"SUCCESS\",\"DESCRIPTION\":\"\",\"result\":{"
		"\"functions\":[\"Total\",\"[p] nginx\",\"[t] nginx\",\"[k] do_syscall_64\","
		"\"[t] worker\",\"[l] write\",\"[k] ksys_write\",\"[p] redis\",\"[t] redis\","
		"\"[unknown] 0x0000000000001234\"],"
		"\"function_types\":[\"H\",\"P\",\"T\",\"K\",\"T\",\"L\",\"K\",\"P\",\"T\",\"?\"],"
		"\"function_values\":{\"columns\":[\"self_value\",\"total_value\"],"
		"\"values\":[[0,60000],[0,50000],[0,20000],[20000,20000],[0,30000],[0,30000],"
		"[30000,30000],[0,10000],[0,10000],[10000,10000]]},"
		"\"node_values\":{\"columns\":[\"function_id\",\"parent_node_id\","
		"\"self_value\",\"total_value\"],"
		"\"values\":[[0,-1,0,60000],[1,0,0,50000],[2,1,0,20000],[3,2,20000,20000],"
		"[4,1,0,30000],[5,4,0,30000],[6,5,30000,30000],[7,0,0,10000],[8,7,0,10000],"
		"[9,8,10000,10000]]},\"profile_event_type\":\"on-cpu\",\"value_unit\":\"us\"},\"debug\":null}\n");
}

/* Quotes and backslashes are JSON-escaped; control characters and invalid
 * UTF-8 become U+FFFD so strict parsers accept the file. */
static void
test_escaping(void)
{
	check_json("p;a\"b\\c\x01\xff 1\n",
		"{\"OPT_STATUS\":\"SUCCESS\",\"DESCRIPTION\":\"\",\"result\":{"
		"\"functions\":[\"p\",\"a\\\"b\\\\c\xef\xbf\xbd\xef\xbf\xbd\"],"
		"\"function_types\":[\"P\",\"A\"],"
		"\"function_values\":{\"columns\":[\"self_value\",\"total_value\"],"
		"\"values\":[[0,10000],[10000,10000]]},"
		"\"node_values\":{\"columns\":[\"function_id\",\"parent_node_id\","
		"\"self_value\",\"total_value\"],"
		"\"values\":[[0,-1,0,10000],[1,0,10000,10000]]},\"profile_event_type\":\"on-cpu\",\"value_unit\":\"us\"},\"debug\":null}\n");
}

/* Values past 2^53 stay exact (cJSON's doubles would round them). */
static void
test_big_values(void)
{
	struct flame_tree	*t = flame_tree_new();
	const char		*path[] = { "p", "f" };
	struct membuf		out;

	membuf_init(&out);
	CHECK_INT(flame_tree_add(t, path, 2, 1, 9007199254740993ULL), 0);
	CHECK_INT(flame_tree_finish(t), 0);
	CHECK_INT(emit_json(t, NULL, &out), 0);
	CHECK(out.data && strstr(out.data, "[1,0,9007199254740993,9007199254740993]"));
	membuf_free(&out);
	flame_tree_free(t);
}

/* The event type and what the values count follow DeepFlow's fields. */
static void
test_event_type(void)
{
	static const struct { const char *event, *type, *unit; } cases[] = {
		{ "off-cpu", "off-cpu", "us" }, { "page-fault", "page-fault", "count" },
		{ NULL, "on-cpu", "us" },
	};
	struct flame_tree	*t = flame_tree_new();
	const char		*path[] = { "p", "f" };
	size_t			i;

	CHECK_INT(flame_tree_add(t, path, 2, 3, 3), 0);
	CHECK_INT(flame_tree_finish(t), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct membuf	out;
		cJSON		*doc, *result;

		membuf_init(&out);
		CHECK_INT(emit_json(t, cases[i].event, &out), 0);
		doc = out.data ? cJSON_Parse(out.data) : NULL;
		result = cJSON_GetObjectItem(doc, "result");
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(result, "profile_event_type")),
			  cases[i].type);
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(result, "value_unit")),
			  cases[i].unit);
		cJSON_Delete(doc);
		membuf_free(&out);
	}
	flame_tree_free(t);
}

static void
test_empty(void)
{
	check_json("",
		"{\"OPT_STATUS\":\"SUCCESS\",\"DESCRIPTION\":\"\",\"result\":{"
		"\"functions\":[],\"function_types\":[],"
		"\"function_values\":{\"columns\":[\"self_value\",\"total_value\"],\"values\":[]},"
		"\"node_values\":{\"columns\":[\"function_id\",\"parent_node_id\","
		"\"self_value\",\"total_value\"],\"values\":[]},\"profile_event_type\":\"on-cpu\",\"value_unit\":\"us\"},\"debug\":null}\n");
}

/* Read back as a consumer would: keys in DeepFlow's order, and the tree
 * invariants (a node's total is its self plus its children's totals). */
static void
test_parse_back(void)
{
	char	*text = json_of(
		"Total;[p] a;[t] a;x;y 5\nTotal;[p] a;[t] b;x 2\nTotal;[p] b;[t] b;[k] z 7\n");
	cJSON	*doc = text ? cJSON_Parse(text) : NULL, *item, *values;
	static const char *const keys[] = { "OPT_STATUS", "DESCRIPTION", "result", "debug" };
	static const char *const rkeys[] = {
		"functions", "function_types", "function_values", "node_values"
	};
	long long	sum[16] = { 0 };
	int		i, n;

	CHECK(doc != NULL);
	if (doc == NULL) {
		free(text);
		return;
	}
	for (i = 0, item = doc->child; i < 4; i++, item = item ? item->next : NULL)
		CHECK_STR(item ? item->string : NULL, keys[i]);
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(doc, "debug")));
	item = cJSON_GetObjectItem(doc, "result");
	for (i = 0, item = item->child; i < 4; i++, item = item ? item->next : NULL)
		CHECK_STR(item ? item->string : NULL, rkeys[i]);
	values = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "result"),
				     "node_values"), "values");
	n = cJSON_GetArraySize(values);
	CHECK_INT(n, 10);
	for (i = 0; i < n && i < 16; i++) {	/* children's totals into parents */
		cJSON *row = cJSON_GetArrayItem(values, i);
		int parent = cJSON_GetArrayItem(row, 1)->valueint;

		sum[i] += cJSON_GetArrayItem(row, 2)->valueint;
		if (parent >= 0)
			sum[parent] += cJSON_GetArrayItem(row, 3)->valueint;
	}
	for (i = 0; i < n && i < 16; i++)
		CHECK_INT(sum[i], cJSON_GetArrayItem(cJSON_GetArrayItem(values, i), 3)->valueint);
	CHECK_INT(cJSON_GetArrayItem(cJSON_GetArrayItem(values, 0), 3)->valueint, 140000);
	cJSON_Delete(doc);
	free(text);
}

static int
collect(void *arg, const void *data, size_t len)
{
	membuf_append(arg, data, len);
	return 0;
}

/* A tree big enough that the node table is written in two halves, the
 * second on a thread: every row is the walk's node, in order, drained in
 * small chunks or held whole alike. */
static void
test_split_table(void)
{
	struct flame_tree	*t = flame_tree_new();
	struct membuf		whole, drained, chunks;
	struct flame_walk	*w;
	const struct flame_node	*x;
	cJSON			*doc, *rows;
	char			names[8][16];
	const char		*path[8];
	uint32_t		r = 99;
	size_t			i, d, bad = 0;

	for (d = 0; d < 8; d++)
		path[d] = names[d];
	for (i = 0; i < 20000; i++) {
		for (d = 0; d < 8; d++) {
			r = r * 1103515245u + 12345u;
			snprintf(names[d], sizeof(names[d]), "f%u", (r >> 16) % (d < 2 ? 5 : 60));
		}
		flame_tree_add(t, path, 8, i % 3 + 1, (i % 3 + 1) * 10101);
	}
	CHECK_INT(flame_tree_finish(t), 0);
	CHECK(flame_tree_nnodes(t) > 64 * 1024);
	membuf_init(&whole);
	membuf_init(&chunks);
	CHECK_INT(emit_json(t, NULL, &whole), 0);
	CHECK_INT(membuf_init_drained(&drained, 4096, collect, &chunks), 0);
	CHECK_INT(emit_json(t, NULL, &drained), 0);
	CHECK_INT(membuf_drain(&drained), 0);
	CHECK_INT(chunks.len, whole.len);
	CHECK(chunks.data != NULL && memcmp(chunks.data, whole.data, whole.len) == 0);
	doc = cJSON_Parse(whole.data);
	rows = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "result"),
						       "node_values"), "values");
	CHECK_INT(cJSON_GetArraySize(rows), flame_tree_nnodes(t));
	w = flame_walk_new(t);
	for (i = 0; w != NULL && (x = flame_walk_next(w)) != NULL; i++) {
		cJSON	*row = cJSON_GetArrayItem(rows, (int)i);

		if (row == NULL ||
		    cJSON_GetArrayItem(row, 0)->valuedouble != x->function ||
		    cJSON_GetArrayItem(row, 1)->valuedouble != x->parent ||
		    cJSON_GetArrayItem(row, 2)->valuedouble != (double)x->self_us ||
		    cJSON_GetArrayItem(row, 3)->valuedouble != (double)x->total_us)
			bad++;
	}
	CHECK_INT(i, flame_tree_nnodes(t));
	CHECK_INT(bad, 0);
	flame_walk_free(w);
	cJSON_Delete(doc);
	membuf_free(&whole);
	membuf_free(&drained);
	membuf_free(&chunks);
	flame_tree_free(t);
}

int
main(void)
{
	test_process_view();
	test_host_view();
	test_escaping();
	test_big_values();
	test_event_type();
	test_empty();
	test_parse_back();
	test_split_table();
	return unit_report("test_json");
}
