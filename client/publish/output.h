/*
 * output.h - render profiles in the requested formats and store them.
 *
 * Layout inside a sink (a directory or an S3 prefix), one profile per
 * directory, newest outputs beside older ones:
 *
 *	index.html		the site: every profile, newest first
 *	index.json		the same list, for programs (and to merge runs)
 *	HOST/NAME/START_END.EXT	one profile of one time range
 *	HOST/NAME/latest.EXT	a copy of the newest one
 *
 * HOST and NAME (process name, "NAME.PID" with --multi-instance from pmcd
 * or archives, or "Total") pass through sink_safe_name; START and END are
 * UTC, e.g. 20261129T132050Z.  A differential profile (--baseline) is
 * HOST/NAME/START_END-diff.EXT and HOST/NAME/latest-diff.EXT; a profile
 * of another event than on-cpu adds "-EVENT" (START_END-off-cpu.EXT).  A host's heat map is
 * HOST/Total/START_END-heatmap.svg and HOST/Total/latest-heatmap.svg.
 * An archive range's flame profile also gets STEM.view.json (c->view),
 * which live.html opens (index.html's "view" link).
 */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include "emit/emit.h"
#include "common/membuf.h"
#include "common/sample.h"
#include "profile/select.h"
#include "sink.h"

/*
 * One row per --format word: adding a format is adding a row.  A row
 * renders flame trees; the heat map's row renders a host's heat map
 * (PROFILE_HEATMAP), and asking for it makes the sources gather one.
 */
struct output_format {
	const char	*name;		/* --format word */
	const char	*ext;		/* file name suffix */
	const char	*content_type;
	int		(*render)(const struct profile *p, const struct emit_options *o,
				  struct membuf *out);
};

#define OUTPUT_MAX_FORMATS	8

const struct output_format *output_format_find(const char *name);
/* "json,svg,folded" -> formats (no duplicates); -1 with err on an unknown word. */
int output_formats_parse(const char *list, const struct output_format **v, size_t *n,
			 char *err, size_t errlen);
/* "json, svg, folded" for messages and --help. */
const char *output_format_names(void);

struct output_context {
	struct sink	*sink;		/* NULL: one output to stdout */
	const struct output_format *formats[OUTPUT_MAX_FORMATS];
	size_t		nformats;
	struct emit_options emit;	/* title, width, ...; subtitle set per profile */
	const char	*source;	/* for the subtitle: "archive", "pmcd", file name */
	bool		filtered;	/* --process/--pid: heat map subtitles say so */
	const char	*baseline;	/* --baseline SOURCE: subtitles say so */
	/* what the window being written is missing: each profile of a gap's
	 * host says so (SVG subtitle, JSON DESCRIPTION, index) */
	const struct data_gap *gaps;
	size_t		ngaps;
	/* an archive range's values for live.html (STEM.view.json beside each
	 * flame profile's files), g[0..ng) its gaps; NULL: none */
	int		(*view)(void *arg, const struct profile *p, const struct data_gap *g,
				size_t ng, struct membuf *out);
	void		*view_arg;
};

/* Whether some requested format renders profiles of this kind. */
bool output_wants(const struct output_context *c, enum profile_kind kind);
/* How many outputs (profile x format of its kind) p[0..n) make. */
size_t output_count(const struct output_context *c, const struct profile *p, size_t n);

/*
 * Render every profile in every format of its kind, then store them and
 * update the site.  Nothing is stored unless every rendering succeeded.
 * Without a sink, the one output there must be goes to stdout.
 */
int output_write(struct output_context *c, const struct profile *p, size_t n,
		 char *err, size_t errlen);

/* UTC "20261129T132050Z" for names. */
void output_time_name(double t, char *buf, size_t len);

#endif /* OUTPUT_H */
