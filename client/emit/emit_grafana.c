/*
 * emit_grafana.c - a profile as the data frame Grafana's flame-graph panel
 * reads (@grafana/flamegraph's FlameGraphDataContainer): one row per node
 * in depth-first order, with the fields
 *	level	number	depth, the root at 0
 *	value	number	the node's total, its subtree included
 *	self	number	the node's own value
 *	label	string	the frame's name
 * The file (*.grafana.json) is a JSON array holding that one frame in
 * DataFrameJSON form, {"schema":{"name","meta","fields"},"data":{"values"}}:
 * the shape of the frames of a Grafana query response, and what the
 * TestData data source's "Raw frames" scenario takes.  Values are
 * microseconds (unit "µs") for time events, samples (unit "short")
 * otherwise.  The panel places each row after the previous one of its
 * level, under one root: several processes without the host view get an
 * "all" row above them, as the SVG draws one.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include "emit_export.h"
#include "json_text_priv.h"

enum column { LEVEL, VALUE, SELF };

/* One column of numbers, a synthetic root first when there is one. */
static void
put_numbers(const struct flame_tree *t, enum column c, bool timed, bool all_row,
	    struct membuf *out)
{
	size_t		i, n = flame_tree_nnodes(t);
	uint64_t	all = 0;

	for (i = 0; i < n; i++) {
		const struct flame_node *x = flame_tree_node(t, i);

		if (x->parent < 0)
			all += timed ? x->total_us : x->total_samples;
	}
	membuf_puts(out, "[");
	if (all_row) {
		json_u64(out, c == VALUE ? all : 0);
		membuf_puts(out, n ? "," : "");
	}
	for (i = 0; i < n; i++) {
		const struct flame_node *x = flame_tree_node(t, i);

		if (i)
			membuf_puts(out, ",");
		json_u64(out, c == LEVEL ? x->depth + all_row :
			      c == VALUE ? (timed ? x->total_us : x->total_samples) :
			      (timed ? x->self_us : x->self_samples));
	}
	membuf_puts(out, "]");
}

/* The label column; each function's name is escaped once. */
static int
put_labels(const struct flame_tree *t, bool all_row, struct membuf *out)
{
	size_t		i, n = flame_tree_nnodes(t), nf = flame_tree_nfunctions(t);
	size_t		*at = malloc((nf + 1) * sizeof(*at));
	struct membuf	names;

	if (at == NULL)
		return -ENOMEM;
	membuf_init(&names);
	for (i = 0; i < nf; i++) {
		at[i] = names.len;
		json_string(&names, flame_tree_function(t, i)->name);
	}
	at[nf] = names.len;
	membuf_puts(out, all_row ? "[\"all\"" : "[");
	for (i = 0; i < n && !names.failed; i++) {
		uint32_t f = flame_tree_node(t, i)->function;

		membuf_puts(out, i || all_row ? "," : "");
		membuf_append(out, names.data + at[f], at[f + 1] - at[f]);
	}
	membuf_puts(out, "]");
	if (names.failed)
		out->failed = 1;
	membuf_free(&names);
	free(at);
	return out->failed ? -ENOMEM : 0;
}

static void
put_schema(const struct profile *p, bool timed, struct membuf *out)
{
	const char	*unit = timed ? "µs" : "short";

	membuf_puts(out, "[{\"schema\":{\"name\":");
	json_string(out, p->name);
	membuf_puts(out, ",\"meta\":{\"preferredVisualisationType\":\"flamegraph\"},\"fields\":["
		    "{\"name\":\"level\",\"type\":\"number\",\"typeInfo\":{\"frame\":\"int64\"}},");
	membuf_printf(out, "{\"name\":\"value\",\"type\":\"number\",\"typeInfo\":{\"frame\":\"int64\"},"
		      "\"config\":{\"unit\":\"%s\"}},", unit);
	membuf_printf(out, "{\"name\":\"self\",\"type\":\"number\",\"typeInfo\":{\"frame\":\"int64\"},"
		      "\"config\":{\"unit\":\"%s\"}},", unit);
	membuf_puts(out, "{\"name\":\"label\",\"type\":\"string\",\"typeInfo\":{\"frame\":\"string\"}}"
		    "]},\"data\":{\"values\":[");
}

int
emit_grafana(const struct profile *p, const struct emit_options *o, struct membuf *out)
{
	const struct flame_tree *t = p->tree;
	bool	timed = event_measure(o ? o->event : "on-cpu")->time_type != NULL;
	bool	all_row = flame_tree_nnodes(t) > 0 && flame_tree_node(t, 0)->next_sibling != 0;

	put_schema(p, timed, out);
	put_numbers(t, LEVEL, timed, all_row, out);
	membuf_puts(out, ",");
	put_numbers(t, VALUE, timed, all_row, out);
	membuf_puts(out, ",");
	put_numbers(t, SELF, timed, all_row, out);
	membuf_puts(out, ",");
	if (put_labels(t, all_row, out) < 0)
		return -ENOMEM;
	membuf_puts(out, "]}}]\n");
	return out->failed ? -ENOMEM : 0;
}
