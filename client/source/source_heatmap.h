/*
 * source_heatmap.h - pmflame --format heatmap: read stackprof.heatmap.oncpu
 * (and the stacks records, for range selection) from pmlogger archives or
 * live pmcd hosts, one heat map per archive or host, and store the SVGs.
 */
#ifndef SOURCE_HEATMAP_H
#define SOURCE_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include "profile/select.h"
#include "publish/sink.h"
#include "source.h"

struct heatmap_run_options {
	/* archives (narchives > 0), else live hosts */
	char		**archives;
	int		narchives;
	const char	*start, *finish, *align, *origin;	/* -S -T -A -O text */
	const char	*timezone;				/* -Z */
	bool		hostzone;				/* -z */
	char		**hosts;
	int		nhosts;
	double		interval;	/* live: seconds between fetches (1 for a heat map) */
	double		duration;	/* live: stop after this long; 0 = at SIGINT/SIGTERM */
	const struct event_metrics *metrics;
	const struct selection *filter;	/* --process/--pid/--event for the stacks; may be NULL */
	/* output */
	const char	*output;	/* -o DIR|s3://...; NULL: the SVG on stdout (one only) */
	struct sink	**sink;		/* opened on first use, unless already open */
	const char	*title;		/* NULL: "CPU heat map" */
	unsigned	width;
};

/* The metric the heat map is made of. */
#define HEATMAP_METRIC	"stackprof.heatmap.oncpu"

/*
 * "--format" words: remove "heatmap" from list.  Returns true when it was
 * there; *rest is the remaining list (malloc'd) or NULL when nothing is left.
 */
bool heatmap_format_take(const char *list, char **rest);

/* Build and store every heat map.  -1 with a message in err on failure. */
int heatmap_run(const struct heatmap_run_options *o, char *err, size_t errlen);

#endif /* SOURCE_HEATMAP_H */
