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
static int
put_numbers(const struct flame_tree *t, enum column c, bool timed, bool all_row,
	    struct membuf *out)
{
	struct flame_walk	*w = flame_walk_new(t);
	const struct flame_node	*x;

	if (w == NULL)
		return -ENOMEM;
	membuf_puts(out, "[");
	if (all_row) {
		json_u64(out, c != VALUE ? 0 : timed ? flame_tree_total_us(t) :
			 flame_tree_total_samples(t));
		membuf_puts(out, flame_tree_nnodes(t) ? "," : "");
	}
	while ((x = flame_walk_next(w)) != NULL) {
		if (x->id)
			membuf_puts(out, ",");
		json_u64(out, c == LEVEL ? x->depth + all_row :
			      c == VALUE ? (timed ? x->total_us : x->total_samples) :
			      (timed ? x->self_us : x->self_samples));
	}
	membuf_puts(out, "]");
	flame_walk_free(w);
	return 0;
}

/* The label column; each function's name is escaped once. */
static int
put_labels(const struct flame_tree *t, bool all_row, struct membuf *out)
{
	size_t			i, nf = flame_tree_nfunctions(t);
	size_t			*at = malloc((nf + 1) * sizeof(*at));
	struct flame_walk	*w = flame_walk_new(t);
	const struct flame_node	*x;
	struct membuf		names;

	if (at == NULL || w == NULL) {
		free(at);
		flame_walk_free(w);
		return -ENOMEM;
	}
	membuf_init(&names);
	for (i = 0; i < nf; i++) {
		at[i] = names.len;
		json_string(&names, flame_tree_function(t, i)->name);
	}
	at[nf] = names.len;
	membuf_puts(out, all_row ? "[\"all\"" : "[");
	while (!names.failed && (x = flame_walk_next(w)) != NULL) {
		membuf_puts(out, x->id || all_row ? "," : "");
		membuf_append(out, names.data + at[x->function],
			      at[x->function + 1] - at[x->function]);
	}
	membuf_puts(out, "]");
	if (names.failed)
		out->failed = 1;
	membuf_free(&names);
	flame_walk_free(w);
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
	bool	all_row = flame_tree_nroots(t) > 1;

	put_schema(p, timed, out);
	if (put_numbers(t, LEVEL, timed, all_row, out) < 0)
		return -ENOMEM;
	membuf_puts(out, ",");
	if (put_numbers(t, VALUE, timed, all_row, out) < 0)
		return -ENOMEM;
	membuf_puts(out, ",");
	if (put_numbers(t, SELF, timed, all_row, out) < 0)
		return -ENOMEM;
	membuf_puts(out, ",");
	if (put_labels(t, all_row, out) < 0)
		return -ENOMEM;
	membuf_puts(out, "]}}]\n");
	return out->failed ? -ENOMEM : 0;
}
