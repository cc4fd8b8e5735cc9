/*
 * event_measure.c - what a profile's values measure, by event type, for
 * the formats that name their units (pprof, speedscope, Grafana).  The
 * tree's microseconds are a time only for the time-based events; for any
 * other event the values are the sample counts.
 */
#include <string.h>
#include "emit_export.h"

static const struct event_measure measures[] = {
	/* time on CPU, as pprof's CPU profiles */
	{ "on-cpu", "cpu", "Flame Graph", "samples", "us", 0 },
	/* time blocked off CPU: the counts are microseconds */
	{ "off-cpu", "off_cpu", "Off-CPU Time Flame Graph", "us", "us", 'B' },
	/* time blocked, by blocked stack and waker: microseconds */
	{ "off-wake", "off_wake", "Off-Wake Time Flame Graph", "us", "us", 'A' },
	/* estimated page faults (samples x period) */
	{ "page-fault", NULL, "Page Fault Flame Graph", "faults", "count", 'G' },
};

static const struct event_measure counted = { NULL, NULL, "Flame Graph", "samples", "count", 0 };

const struct event_measure *
event_measure(const char *event)
{
	size_t	i;

	for (i = 0; event != NULL && i < sizeof(measures) / sizeof(measures[0]); i++)
		if (strcmp(measures[i].event, event) == 0)
			return &measures[i];
	return &counted;
}
