/*
 * emit_json.c - DeepFlow's ProfileTracing result, with its envelope and
 * field order exactly:
 *
 *   {"OPT_STATUS":"SUCCESS","DESCRIPTION":"","result":{"functions":[...],
 *    "function_types":[...],"function_values":{"columns":["self_value",
 *    "total_value"],"values":[[s,t],...]},"node_values":{"columns":
 *    ["function_id","parent_node_id","self_value","total_value"],
 *    "values":[[f,p,s,t],...]}},"debug":null}
 *
 * Values are microseconds.  cJSON builds the document and escapes the
 * names.  The two "values" tables are written as raw JSON text: cJSON keeps
 * numbers as doubles (not exact past 2^53) and spends ~64 bytes per item,
 * which for a million nodes would be 300 MB instead of the table's 25 MB.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "emit.h"

/* Append v in decimal: the tables have millions of numbers, and printf
 * (twice per call through membuf_printf) would dominate the emitter. */
static char *
put_u64(char *p, uint64_t v)
{
	char	digits[20];
	int	n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = digits[--n];
	return p;
}

/* Append sep then "[c0,c1,...]"; a parent of -1 (the root's) comes in as
 * UINT64_MAX and is written as -1. */
static void
put_row(struct membuf *b, const char *sep, const uint64_t *cols, int ncols)
{
	char	row[4 * 21 + 8], *p = row;
	int	i;

	p = stpcpy(p, sep);
	*p++ = '[';
	for (i = 0; i < ncols; i++) {
		if (i)
			*p++ = ',';
		if (cols[i] == UINT64_MAX)
			p = stpcpy(p, "-1");
		else
			p = put_u64(p, cols[i]);
	}
	*p++ = ']';
	membuf_append(b, row, (size_t)(p - row));
}

static cJSON *
function_values(const struct flame_tree *t, struct membuf *scratch)
{
	size_t	i, n = flame_tree_nfunctions(t);

	membuf_reset(scratch);
	membuf_puts(scratch, "[");
	for (i = 0; i < n; i++) {
		const struct flame_function *f = flame_tree_function(t, i);
		uint64_t cols[2] = { f->self_us, f->total_us };

		put_row(scratch, i ? "," : "", cols, 2);
	}
	membuf_puts(scratch, "]");
	return scratch->failed ? NULL : cJSON_CreateRaw(scratch->data);
}

static cJSON *
node_values(const struct flame_tree *t, struct membuf *scratch)
{
	size_t	i, n = flame_tree_nnodes(t);

	membuf_reset(scratch);
	membuf_puts(scratch, "[");
	for (i = 0; i < n; i++) {
		const struct flame_node *x = flame_tree_node(t, i);
		uint64_t cols[4] = {
			x->function, x->parent < 0 ? UINT64_MAX : (uint64_t)x->parent,
			x->self_us, x->total_us
		};

		put_row(scratch, i ? "," : "", cols, 4);
	}
	membuf_puts(scratch, "]");
	return scratch->failed ? NULL : cJSON_CreateRaw(scratch->data);
}

/* {"columns":[...],"values":values}; takes values even on failure. */
static cJSON *
value_table(const char *const *columns, int ncolumns, cJSON *values)
{
	cJSON	*table = cJSON_CreateObject();
	cJSON	*cols = cJSON_CreateStringArray(columns, ncolumns);

	if (table == NULL || cols == NULL || values == NULL) {
		cJSON_Delete(table);
		cJSON_Delete(cols);
		cJSON_Delete(values);
		return NULL;
	}
	cJSON_AddItemToObject(table, "columns", cols);
	cJSON_AddItemToObject(table, "values", values);
	return table;
}

/* Names are cleaned (invalid UTF-8, control characters) so strict JSON
 * parsers accept every output. */
static cJSON *
clean_string(const char *s, struct membuf *scratch)
{
	membuf_reset(scratch);
	text_clean(scratch, s);
	membuf_append(scratch, "", 0);
	return scratch->failed ? NULL : cJSON_CreateString(scratch->data);
}

static cJSON *
function_lists(const struct flame_tree *t, cJSON *result, struct membuf *scratch)
{
	cJSON	*names = cJSON_AddArrayToObject(result, "functions");
	cJSON	*types = cJSON_AddArrayToObject(result, "function_types");
	size_t	i, n = flame_tree_nfunctions(t);

	if (names == NULL || types == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct flame_function *f = flame_tree_function(t, i);
		char	type[2] = { f->type, '\0' };
		cJSON	*name = clean_string(f->name, scratch);
		cJSON	*letter = cJSON_CreateString(type);

		if (name == NULL || letter == NULL) {
			cJSON_Delete(name);
			cJSON_Delete(letter);
			return NULL;
		}
		cJSON_AddItemToArray(names, name);
		cJSON_AddItemToArray(types, letter);
	}
	return result;
}

static cJSON *
profile_result(const struct flame_tree *t, struct membuf *scratch)
{
	static const char *const fcols[] = { "self_value", "total_value" };
	static const char *const ncols[] = {
		"function_id", "parent_node_id", "self_value", "total_value"
	};
	cJSON	*result = cJSON_CreateObject();
	cJSON	*fv, *nv;

	if (result == NULL || function_lists(t, result, scratch) == NULL) {
		cJSON_Delete(result);
		return NULL;
	}
	fv = value_table(fcols, 2, function_values(t, scratch));
	if (fv == NULL || !cJSON_AddItemToObject(result, "function_values", fv)) {
		cJSON_Delete(fv);
		cJSON_Delete(result);
		return NULL;
	}
	nv = value_table(ncols, 4, node_values(t, scratch));
	if (nv == NULL || !cJSON_AddItemToObject(result, "node_values", nv)) {
		cJSON_Delete(nv);
		cJSON_Delete(result);
		return NULL;
	}
	return result;
}

int
emit_json(const struct flame_tree *t, struct membuf *out)
{
	return emit_json_described(t, NULL, out);
}

int
emit_json_described(const struct flame_tree *t, const char *description, struct membuf *out)
{
	struct membuf	scratch;
	cJSON		*doc = cJSON_CreateObject(), *result, *desc;
	char		*text = NULL;

	membuf_init(&scratch);
	desc = clean_string(description ? description : "", &scratch);
	if (doc != NULL && desc != NULL &&
	    cJSON_AddStringToObject(doc, "OPT_STATUS", "SUCCESS") != NULL &&
	    cJSON_AddItemToObject(doc, "DESCRIPTION", desc)) {
		desc = NULL;		/* doc's now */
		if ((result = profile_result(t, &scratch)) != NULL) {
			membuf_free(&scratch);
			cJSON_AddItemToObject(doc, "result", result);
			if (cJSON_AddNullToObject(doc, "debug") != NULL)
				text = cJSON_PrintUnformatted(doc);
		}
	}
	membuf_free(&scratch);
	cJSON_Delete(desc);
	cJSON_Delete(doc);
	if (text == NULL)
		return -ENOMEM;
	membuf_puts(out, text);
	membuf_puts(out, "\n");
	free(text);
	return out->failed ? -ENOMEM : 0;
}
