/*
 * site.h - the static site of a sink: index.html lists every profile
 * (host, process, time range, links to each format), newest first;
 * index.json holds the same list so that successive runs, and periods of
 * one run, add to it instead of replacing it.  The page filters its rows
 * by host, profile and event with a constant script that reads them from
 * the rows' data-* attributes: no profile text is ever inside a script.
 */
#ifndef SITE_H
#define SITE_H

#include <stddef.h>
#include <stdint.h>
#include "common/sample.h"
#include "index_merge.h"
#include "sink.h"

struct site_entry {
	const char	*host;		/* as reported, not made safe: escaped on output */
	const char	*name;		/* process name or "Total" */
	const char	*event;		/* on-cpu, off-cpu, ...; NULL: unknown */
	uint32_t	pid;
	double		start, end;
	uint64_t	samples;
	const char	*stem;		/* "HOST/NAME/START_END", relative to the sink */
	const char	*exts[8];	/* formats written for it */
	size_t		nexts;
	const struct data_gap *gaps;	/* what it misses (host unused: the entry's) */
	size_t		ngaps;		/* the first SITE_MAX_GAPS are kept */
};

#define SITE_MAX_GAPS	8

#define SITE_MAX_ENTRIES	5000	/* oldest fall off the index, not the disk */

/* Merge entries into index.json and rewrite index.html, both atomically. */
int site_update(struct sink *s, const struct site_entry *e, size_t n,
		char *err, size_t errlen);

/*
 * The index of two index.json texts, for delivering a spooled one: rows of
 * newer replace older's rows of the same path, the rest are kept.  Either
 * may be NULL or damaged (no rows).  0 with *json (free it) and *html
 * (membuf_free it) set, or -1 when out of memory.
 */
struct membuf;
int site_merge_text(const char *newer, const char *older, char **json, struct membuf *html);

/* The index as the S3 spool must merge it on delivery (sink_open's im). */
extern const struct index_merge site_index_merge;

#endif /* SITE_H */
