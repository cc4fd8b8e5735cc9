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

/* "samples" and "weights" of the nodes [from, to), one subtree in pre-order;
 * path holds the frame indexes from the root down to the current node. */
static void
put_samples(const struct flame_tree *t, size_t from, size_t to, bool timed,
	    uint32_t *path, struct membuf *out)
{
	const char	*sep = "";
	size_t		i;
	uint32_t	d;

	membuf_puts(out, "\"samples\":[");
	for (i = from; i < to; i++) {
		const struct flame_node *x = flame_tree_node(t, i);

		path[x->depth] = x->function;
		if (self_value(x, timed) == 0)
			continue;
		membuf_puts(out, sep);
		sep = ",";
		for (d = 0; d <= x->depth; d++) {
			membuf_puts(out, d ? "," : "[");
			json_u64(out, path[d]);
		}
		membuf_puts(out, "]");
	}
	membuf_puts(out, "],\"weights\":[");
	for (sep = "", i = from; i < to; i++) {
		const struct flame_node *x = flame_tree_node(t, i);

		if (self_value(x, timed) == 0)
			continue;
		membuf_puts(out, sep);
		sep = ",";
		json_u64(out, self_value(x, timed));
	}
	membuf_puts(out, "]");
}

/* One sampled profile: the subtree of root (nodes [root, end)), or an empty
 * one named name when root is past the end (an empty tree). */
static void
put_profile(const struct flame_tree *t, size_t root, size_t end, const char *name,
	    bool timed, uint32_t *path, struct membuf *out)
{
	const struct flame_node *x = root < end ? flame_tree_node(t, root) : NULL;

	membuf_puts(out, "{\"type\":\"sampled\",\"name\":");
	json_string(out, x ? flame_tree_function(t, x->function)->name : name);
	membuf_puts(out, timed ? ",\"unit\":\"microseconds\"" : ",\"unit\":\"none\"");
	membuf_puts(out, ",\"startValue\":0,\"endValue\":");
	json_u64(out, x == NULL ? 0 : timed ? x->total_us : x->total_samples);
	membuf_puts(out, ",");
	put_samples(t, root, end, timed, path, out);
	membuf_puts(out, "}");
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
	size_t		n = flame_tree_nnodes(t), root = 0, next;
	uint32_t	*path = malloc((flame_tree_max_depth(t) + 1) * sizeof(*path));

	if (path == NULL)
		return -ENOMEM;
	membuf_puts(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",");
	put_frames(t, out);
	membuf_puts(out, "\"profiles\":[");
	do {	/* roots are siblings, each followed by its subtree */
		next = root < n && flame_tree_node(t, root)->next_sibling ?
		       flame_tree_node(t, root)->next_sibling : n;
		membuf_puts(out, root ? "," : "");
		put_profile(t, root, next, p->name, timed, path, out);
	} while ((root = next) < n);
	membuf_puts(out, "],\"name\":");
	put_name(p, o, out);
	membuf_puts(out, ",\"activeProfileIndex\":0,\"exporter\":\"" EXPORTER "\"}\n");
	free(path);
	return out->failed ? -ENOMEM : 0;
}
