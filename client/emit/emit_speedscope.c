/*
 * emit_speedscope.c - a profile in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json, *.speedscope.json):
 *  - shared.frames: one frame per function of the tree, {"name": ...};
 *  - one "sampled" profile per root of the tree (the process, or the host
 *    view "Total"), named after the root;
 *  - one sample per node with a self value: the frame indexes from the
 *    root down to the node, weighted by that self value: microseconds for
 *    time events (unit "microseconds"), samples otherwise (unit "none");
 *  - startValue 0 and endValue the root's total, which the weights sum to.
 * Samples come in tree order (siblings sorted by name), so speedscope's
 * "Time Order" view shows them merged as flamegraph.pl does: aggregated
 * stacks have no time order left to show.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include "emit_export.h"
#include "json_text_priv.h"

#define EXPORTER	"pmflame (pcp-stackprof)"

static uint64_t
self_value(const struct flame_node *x, bool timed)
{
	return timed ? x->self_us : x->self_samples;
}

static void
put_frames(const struct flame_tree *t, struct membuf *out)
{
	size_t	i, n = flame_tree_nfunctions(t);

	membuf_puts(out, "\"shared\":{\"frames\":[");
	for (i = 0; i < n; i++) {
		membuf_puts(out, i ? ",{\"name\":" : "{\"name\":");
		json_string(out, flame_tree_function(t, i)->name);
		membuf_puts(out, "}");
	}
	membuf_puts(out, "]},");
}

/* Open a sampled profile named name, worth total; its samples follow. */
static void
open_profile(struct membuf *out, const char *name, uint64_t total, bool timed)
{
	membuf_puts(out, "{\"type\":\"sampled\",\"name\":");
	json_string(out, name);
	membuf_puts(out, timed ? ",\"unit\":\"microseconds\"" : ",\"unit\":\"none\"");
	membuf_puts(out, ",\"startValue\":0,\"endValue\":");
	json_u64(out, total);
	membuf_puts(out, ",\"samples\":[");
}

/* Close it: its weights were gathered beside its samples. */
static void
close_profile(struct membuf *out, struct membuf *weights)
{
	membuf_puts(out, "],\"weights\":[");
	membuf_append(out, weights->data ? weights->data : "", weights->len);
	membuf_puts(out, "]}");
	if (weights->failed)
		out->failed = 1;
	membuf_reset(weights);
}

/*
 * One sampled profile per root, each followed by its subtree in the walk:
 * a sample per node with a self value, the frame indexes from the root
 * down (path[]), its weight gathered aside.  An empty tree is one empty
 * profile named name.
 */
static int
put_profiles(const struct flame_tree *t, const char *name, bool timed,
	     uint32_t *path, struct membuf *out)
{
	struct flame_walk	*w = flame_walk_new(t);
	const struct flame_node	*x;
	struct membuf		weights;
	bool			first = true;
	uint32_t		d;

	if (w == NULL)
		return -ENOMEM;
	membuf_init(&weights);
	while ((x = flame_walk_next(w)) != NULL) {
		if (x->depth == 0) {
			if (x->id)
				close_profile(out, &weights);
			membuf_puts(out, x->id ? "," : "");
			open_profile(out, flame_tree_function(t, x->function)->name,
				     timed ? x->total_us : x->total_samples, timed);
			first = true;
		}
		path[x->depth] = x->function;
		if (self_value(x, timed) == 0)
			continue;
		membuf_puts(out, first ? "" : ",");
		membuf_puts(&weights, first ? "" : ",");
		first = false;
		for (d = 0; d <= x->depth; d++) {
			membuf_puts(out, d ? "," : "[");
			json_u64(out, path[d]);
		}
		membuf_puts(out, "]");
		json_u64(&weights, self_value(x, timed));
	}
	if (flame_tree_nnodes(t) == 0)
		open_profile(out, name, 0, timed);
	close_profile(out, &weights);
	membuf_free(&weights);
	flame_walk_free(w);
	return 0;
}

/* The file's name: "java, archive web01, 2026-... to ..." */
static void
put_name(const struct profile *p, const struct emit_options *o, struct membuf *out)
{
	struct membuf	name;

	membuf_init(&name);
	membuf_puts(&name, p->name);
	if (o && o->subtitle) {
		membuf_puts(&name, ", ");
		membuf_puts(&name, o->subtitle);
	} else {
		membuf_puts(&name, " on ");
		membuf_puts(&name, p->host);
	}
	json_string(out, name.failed ? "" : name.data);
	if (name.failed)
		out->failed = 1;
	membuf_free(&name);
}

int
emit_speedscope(const struct profile *p, const struct emit_options *o, struct membuf *out)
{
	const struct flame_tree *t = p->tree;
	bool		timed = event_measure(o ? o->event : "on-cpu")->time_type != NULL;
	uint32_t	*path = malloc((flame_tree_max_depth(t) + 1) * sizeof(*path));
	int		sts;

	if (path == NULL)
		return -ENOMEM;
	membuf_puts(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",");
	put_frames(t, out);
	membuf_puts(out, "\"profiles\":[");
	sts = put_profiles(t, p->name, timed, path, out);
	membuf_puts(out, "],\"name\":");
	put_name(p, o, out);
	membuf_puts(out, ",\"activeProfileIndex\":0,\"exporter\":\"" EXPORTER "\"}\n");
	free(path);
	return sts < 0 || out->failed ? -ENOMEM : 0;
}
