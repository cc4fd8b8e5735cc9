/*
 * fetch.h - what one pmFetch asks of a pmcd or archive context, and how
 * its result reaches a source_consumer.  Live and archive sources both go
 * through here, so every format sees the same data the same way.
 *
 * The stack records are always asked for; with heat maps wanted,
 * stackprof.heatmap.oncpu and stackprof.control.interval (which second a
 * record belongs to) come in the same fetch, under one timestamp.
 */
#ifndef FETCH_H
#define FETCH_H

#include <stdbool.h>
#include <pcp/pmapi.h>
#include "history.h"
#include "records.h"
#include "source.h"

#define HEATMAP_METRIC	"stackprof.heatmap.oncpu"
#define INTERVAL_METRIC	"stackprof.control.interval"

struct fetch_set {
	struct record_ids ids;
	bool		have_stacks;
	/* archives that logged stackprof.<event>.history are read through it
	 * (from their start: definitions come once), not the records */
	pmID		history;		/* PM_ID_NULL: records */
	struct history_reader *hist;
	/* the history's heat lines summed into counters, for c->counters */
	uint64_t	heat_total[1000];
	unsigned	heat_n;
	pmID		heat, interval;		/* PM_ID_NULL: not fetched */
	pmID		pmids[3];
	int		npmids;
	double		drain;			/* seconds a record covers (last seen) */
};

/*
 * Look the metrics c needs up in the current context; where ("host X",
 * "archive X") and archive (for the hints) name it in messages.  Missing
 * stack records are an error unless c->stacks_optional (then a warning);
 * a missing heat map metric is an error when c wants heat maps.  In an
 * archive the stack history is preferred to records when it was logged,
 * and its heat lines to stackprof.heatmap.oncpu.
 * fetch_free releases what a successful lookup holds.
 */
int fetch_lookup(struct fetch_set *f, const struct event_metrics *m,
		 const struct source_consumer *c, const char *where, bool archive,
		 char *err, size_t errlen);

void fetch_free(struct fetch_set *f);

/* Which records go where: (from, to] to c->sample, the rest of
 * (near_from, near_to] to c->near.  ±INFINITY for no bound. */
struct fetch_range {
	double	from, to;
	double	near_from, near_to;
};

/* What a result held, beyond what the consumer was given. */
struct fetch_counts {
	struct record_counts records;	/* all records (near ones too) */
	unsigned long	in_window;	/* records handed to c->sample ... */
	double		first, last;	/* ... their oldest and newest timestamps */
	int		decode_error;	/* a PCP error unpacking records: batch skipped */
	unsigned long	bad_heat;	/* heat map values with unexpected instances */
};

/*
 * Hand one result to c: the drain interval, the heat map counters (restart:
 * only a baseline), then the records.  Returns 0 or the consumer's
 * negative status; what could not be decoded is counted in *n.
 */
int fetch_deliver(struct fetch_set *f, const pmResult *rp, const char *host,
		  const struct fetch_range *r, bool restart,
		  const struct source_consumer *c, struct fetch_counts *n);

/*
 * A history read as text from elsewhere than a pmapi context (pmseries,
 * source_series.c): f decodes m's values, one reader per stream, so each
 * keeps its own definitions; fetch_free releases it.  -ENOMEM.
 */
int fetch_history_init(struct fetch_set *f, const struct event_metrics *m);

/* One value of that history, handed to c as fetch_deliver does. */
int fetch_history_text(struct fetch_set *f, const char *text, const char *host,
		       const struct fetch_range *r, const struct source_consumer *c,
		       struct fetch_counts *n);

#endif /* FETCH_H */
