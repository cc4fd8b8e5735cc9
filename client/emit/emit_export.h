/*
 * emit_export.h - a profile in the formats other tools read: pprof
 * (go tool pprof, Pyroscope, Parca), speedscope, and the data frame of
 * Grafana's flame-graph panel.  Unlike emit.h's emitters these take the
 * whole profile, because they carry its host, time range and pid.
 *
 * Values stay exact integers: pprof's int64 nanoseconds; in the JSON
 * formats microseconds (or samples, for events that are not a time),
 * which JavaScript readers hold as doubles, exact below 2^53 (285 years).
 * Every profile string is cleaned (invalid UTF-8 and control characters
 * become U+FFFD) and escaped as data.  docs/design.md ("Formats") has
 * each format's mapping.
 */
#ifndef EMIT_EXPORT_H
#define EMIT_EXPORT_H

#include "emit.h"
#include "profile/select.h"

/* What a profile's values measure, from its event type (--event). */
struct event_measure {
	const char	*event;		/* "on-cpu" */
	const char	*time_type;	/* pprof name of its time ("cpu"); NULL when
					 * the event is not a time: values are counts */
	const char	*title;		/* the SVG's default title */
	const char	*count_name;	/* what the SVG's frame counts are */
	const char	*unit;		/* of the JSON values: "us" or "count" */
	char		palette;	/* 0: by frame type; 'B' blues (off-CPU, as
					 * Gregg's), 'A' aqua (off-wake), 'G' greens
					 * (memory) */
};

/* The event's measure; an unknown or NULL event is a count. */
const struct event_measure *event_measure(const char *event);

/*
 * Each appends to out and returns 0 or -ENOMEM; emit_pprof also -ERANGE
 * when a value does not fit int64 nanoseconds.  o may be NULL (defaults).
 */

/* gzipped profile.proto (*.pb.gz). */
int emit_pprof(const struct profile *p, const struct emit_options *o, struct membuf *out);
/* speedscope's file format, one sampled profile per root (*.speedscope.json). */
int emit_speedscope(const struct profile *p, const struct emit_options *o, struct membuf *out);
/* A Grafana data frame (level, value, self, label) in DataFrameJSON (*.grafana.json). */
int emit_grafana(const struct profile *p, const struct emit_options *o, struct membuf *out);

#endif /* EMIT_EXPORT_H */
