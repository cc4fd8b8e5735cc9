/*
 * export_input.h - a struct profile around a hand-written folded tree
 * (flame_input.h: 10000 us per sample, as at 100 Hz), for the tests of
 * the export emitters (emit_export.h), and a way to render one.
 */
#ifndef EXPORT_INPUT_H
#define EXPORT_INPUT_H

#include <errno.h>
#include <cjson/cJSON.h>
#include "emit/emit_export.h"
#include "flame_input.h"

#define PROFILE_START	1767322800.25	/* 2026-01-02T03:00:00.25Z */
#define PROFILE_END	1767322860.5

static struct profile
profile_from(const char *folded, const char *name, uint32_t pid)
{
	struct profile	p = {
		.host = (char *)"web01", .name = (char *)name, .pid = pid,
		.start = PROFILE_START, .end = PROFILE_END, .tree = tree_from(folded),
	};

	return p;
}

typedef int (*export_fn)(const struct profile *, const struct emit_options *, struct membuf *);

/* Render folded text with fn for event (NULL: the defaults' on-cpu) into
 * out; returns the emitter's status. */
static int
render_export(export_fn fn, const char *folded, const char *name, uint32_t pid,
	      const char *event, struct membuf *out)
{
	struct profile		p = profile_from(folded, name, pid);
	struct emit_options	o;
	int			sts;

	emit_options_default(&o);
	if (event)
		o.event = event;
	membuf_init(out);
	sts = p.tree ? fn(&p, &o, out) : -ENOMEM;
	flame_tree_free(p.tree);
	return sts;
}

/* What a JSON export emitter writes for folded text, parsed by cJSON
 * (NULL if rendering or parsing failed). */
static inline cJSON *
export_json(export_fn fn, const char *folded, const char *name, const char *event)
{
	struct membuf	out;
	cJSON		*doc = NULL;

	if (render_export(fn, folded, name, 0, event, &out) == 0)
		doc = cJSON_Parse(out.data);
	membuf_free(&out);
	return doc;
}

#endif /* EXPORT_INPUT_H */
