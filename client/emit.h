/*
 * emit.h - emitters turn a finished flame_tree into bytes in a membuf.
 * Each is deterministic: the same tree gives the same bytes.
 */
#ifndef EMIT_H
#define EMIT_H

#include <stdbool.h>
#include "membuf.h"
#include "tree.h"

struct emit_options {
	const char	*title;		/* default "Flame Graph" */
	const char	*subtitle;	/* e.g. host and time range; may be NULL */
	unsigned	width;		/* SVG width in pixels, default 1200 */
	double		minwidth;	/* omit frames narrower than this (pixels), default 0.1 */
	bool		inverted;	/* icicle graph: root at the top */
	const char	*count_name;	/* default "samples" */
};

void emit_options_default(struct emit_options *o);

/* DeepFlow ProfileTracing JSON envelope; values in microseconds. */
int emit_json(const struct flame_tree *t, struct membuf *out);
/* Self-contained interactive SVG flame graph. */
int emit_svg(const struct flame_tree *t, const struct emit_options *o, struct membuf *out);
/* Folded stacks "root;frame;frame count", one line per leaf path, sorted. */
int emit_folded(const struct flame_tree *t, struct membuf *out);

/* Escape text for XML character data or attribute values; invalid UTF-8 and
 * control characters become U+FFFD. */
void xml_escape(struct membuf *out, const char *s);

#endif /* EMIT_H */
