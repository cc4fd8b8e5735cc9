/*
 * emit.h - emitters turn a finished flame_tree into bytes in a membuf.
 * Each is deterministic: the same tree gives the same bytes.
 */
#ifndef EMIT_H
#define EMIT_H

#include <stdbool.h>
#include <stddef.h>
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

/*
 * The emitters append to out.  Each returns 0, or -ENOMEM when out could
 * not grow (out->failed is set).  An empty tree is not an error: JSON has
 * empty arrays, the SVG says "No samples", folded is empty.
 */

/* DeepFlow ProfileTracing JSON envelope, one line; values in microseconds. */
int emit_json(const struct flame_tree *t, struct membuf *out);
/* Self-contained interactive SVG flame graph; o may be NULL (defaults). */
int emit_svg(const struct flame_tree *t, const struct emit_options *o, struct membuf *out);
/* Folded stacks "root;frame;frame count", one line per node with self
 * samples, sorted bytewise. */
int emit_folded(const struct flame_tree *t, struct membuf *out);

/* Escape text for XML character data or attribute values; invalid UTF-8 and
 * control characters become U+FFFD (one per bad byte). */
void xml_escape(struct membuf *out, const char *s);
/* The same, stopping after max_chars characters. */
void xml_escape_prefix(struct membuf *out, const char *s, size_t max_chars);
/* The same replacements, no entities: for JSON strings and folded lines. */
void text_clean(struct membuf *out, const char *s);
/* How many characters xml_escape() writes for s (entities count one). */
size_t xml_text_length(const char *s);

#endif /* EMIT_H */
