/*
 * emit_folded.c - folded stacks ("root;frame;...;leaf count"), the input
 * format of flamegraph.pl, inferno, speedscope and Pyroscope: one line per
 * node with self samples, lines sorted bytewise.  A differential tree
 * (--baseline) gives difffolded.pl's "root;...;leaf before after" lines:
 * the baseline's samples, then the current profile's.
 *
 * A name is cleaned like XML text (invalid UTF-8 and control characters
 * become U+FFFD) and a ';' inside it becomes ',', so every line splits
 * back into the same frames and a newline can never start a new line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "emit.h"

struct folded_lines {
	struct membuf	text;		/* NUL-terminated lines, back to back */
	size_t		*offsets;
	size_t		count, cap;
};

static void
append_frame(struct membuf *path, const char *name)
{
	size_t	from = path->len, i;

	text_clean(path, name);
	for (i = from; i < path->len; i++)
		if (path->data[i] == ';')
			path->data[i] = ',';
}

/* "path count", or for a differential tree difffolded.pl's
 * "path baseline count". */
static int
add_line(struct folded_lines *l, const struct membuf *path, const struct flame_node *x,
	 int diff)
{
	if (array_reserve(&l->offsets, &l->cap, l->count + 1) < 0)
		return -ENOMEM;
	l->offsets[l->count++] = l->text.len;
	membuf_append(&l->text, path->data, path->len);
	if (diff)
		membuf_printf(&l->text, " %" PRIu64, x->base_self_samples);
	membuf_printf(&l->text, " %" PRIu64, x->self_samples);
	membuf_append(&l->text, "", 1);		/* keep the NUL */
	return l->text.failed ? -ENOMEM : 0;
}

/* Walk the nodes in pre-order keeping the current path's text in path;
 * end[d] is where the name at depth d ends in it. */
static int
collect_lines(const struct flame_tree *t, struct folded_lines *l)
{
	size_t			*end = malloc((flame_tree_max_depth(t) + 1) * sizeof(*end));
	struct flame_walk	*w = flame_walk_new(t);
	const struct flame_node	*x;
	struct membuf		path;
	int			sts = 0, diff = flame_tree_has_baseline(t);

	if (end == NULL || w == NULL) {
		free(end);
		flame_walk_free(w);
		return -ENOMEM;
	}
	membuf_init(&path);
	while (sts == 0 && (x = flame_walk_next(w)) != NULL) {
		/* keep the ancestors' names, drop the rest */
		path.len = x->depth ? end[x->depth - 1] : 0;
		if (x->depth)
			membuf_append(&path, ";", 1);
		append_frame(&path, flame_tree_function(t, x->function)->name);
		end[x->depth] = path.len;
		if (path.failed)
			sts = -ENOMEM;
		else if (x->self_samples > 0 || (diff && x->base_self_samples > 0))
			sts = add_line(l, &path, x, diff);
	}
	membuf_free(&path);
	flame_walk_free(w);
	free(end);
	return sts;
}

static int
compare_lines(const void *a, const void *b, void *arg)
{
	const char	*base = arg;

	return strcmp(base + *(const size_t *)a, base + *(const size_t *)b);
}

int
emit_folded(const struct flame_tree *t, struct membuf *out)
{
	struct folded_lines	l;
	size_t			i;
	int			sts;

	memset(&l, 0, sizeof(l));
	membuf_init(&l.text);
	if ((sts = collect_lines(t, &l)) == 0 && l.count > 0) {
		qsort_r(l.offsets, l.count, sizeof(*l.offsets), compare_lines, l.text.data);
		for (i = 0; i < l.count; i++) {
			membuf_puts(out, l.text.data + l.offsets[i]);
			membuf_append(out, "\n", 1);
		}
	}
	membuf_free(&l.text);
	free(l.offsets);
	if (sts == 0 && out->failed)
		sts = -ENOMEM;
	return sts;
}
