/*
 * emit_speedscope.c - a profile in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json, *.speedscope.json):
 *  - shared.frames: one frame per function of the tree, {"name": ...},
 *    with the kind of a kernel, library or CUDA frame as its "file"
 *    (frame_kind.h): {"name": "schedule", "file": "[kernel.kallsyms]"};
 *    a Python frame's own (py_frame.h): {"name": "serve", "file":
 *    "app.py", "line": 41}, the line with pmflame --lines;
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
#include <string.h>
#include "emit_export.h"
#include "frame_kind.h"
#include "common/py_frame.h"
#include "json_text_priv.h"

#define EXPORTER	"pmflame (pcp-stackprof)"

static uint64_t
self_value(const struct flame_node *x, bool timed)
{
	return timed ? x->self_us : x->self_samples;
}

/* name[at, at + n) as a JSON string. */
static void
json_part(struct membuf *out, const char *name, size_t at, size_t n)
{
	char	*part = strndup(name + at, n);

	if (part == NULL) {
		out->failed = 1;
		return;
	}
	json_string(out, part);
	free(part);
}

static void
put_frames(const struct flame_tree *t, struct membuf *out)
{
	size_t	i, n = flame_tree_nfunctions(t);

	membuf_puts(out, "\"shared\":{\"frames\":[");
	for (i = 0; i < n; i++) {
		const struct flame_function *f = flame_tree_function(t, i);
		const char *file = frame_kind_file(f->type);
		struct py_frame py;

		membuf_puts(out, i ? ",{\"name\":" : "{\"name\":");
		if (f->type == 'A' && py_frame_parse(f->name, strlen(f->name), &py)) {
			json_part(out, f->name, 0, py.qual_len);
			membuf_puts(out, ",\"file\":");
			json_part(out, f->name, py.file_at, py.file_len);
			if (py.line) {
				membuf_puts(out, ",\"line\":");
				json_u64(out, py.line);
			}
			membuf_puts(out, "}");
			continue;
		}
		json_string(out, frame_kind_name(f->name, f->type));
		if (file) {
			membuf_puts(out, ",\"file\":");
			json_string(out, file);
		}
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
