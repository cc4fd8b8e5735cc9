/*
 * live_host.h - one pmcd host of a live run: its context, what a poll
 * fetches from it, and what happens when pmcd or the stackprof agent goes
 * away and comes back.  Private to source/ (source_live.c runs the loop).
 *
 * A host is "down" from its last good fetch until a fetch brings stackprof
 * values again: pmFetch failed (pmcd gone: we reconnect, paced by
 * PMCD_RECONNECT_TIMEOUT), or the agent's metrics answer an error (the
 * agent died; pmcd starts it again on SIGHUP or its own restart).  An
 * agent that restarted between two polls is caught by its drain counter
 * going back.  Each case ends in one gap (start = last good fetch, end =
 * the first good one after, local clock) handed to the consumer, a new
 * heat map baseline, and one line on stderr when it starts and one when it
 * ends.  Records cannot be doubled: a new pmcd context, or a new agent,
 * starts its event queue at our first fetch, and records no newer than
 * the newest we were given are dropped anyway.
 */
#ifndef LIVE_HOST_H
#define LIVE_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <pcp/pmapi.h>
#include "fetch.h"
#include "source.h"

/* what was seen while a host was down: says why in the gap */
enum live_trouble {
	LT_LINK = 1,		/* pmFetch failed: the connection to pmcd */
	LT_AGENT = 2,		/* stackprof's metrics answered an error */
	LT_PMCD_RESTART = 4,	/* pmcd.pid changed */
	LT_AGENT_RESTART = 8,	/* stackprof.stats.drains went back */
};

struct live_host {
	const char		*spec;		/* as given with -h */
	char			label[256];	/* pmcd's own host name */
	int			ctx;
	int			same_as;	/* index of an earlier -h for the same pmcd, or -1 */
	struct fetch_set	fetch;
	pmID			pmids[6];	/* fetch.pmids, then the two below */
	int			npmids;
	pmID			pmcd_pid, drains;	/* PM_ID_NULL when unknown */
	int			pid_type, drains_type;
	int			last_error;	/* a decode error, reported once until it changes */
	double			since;		/* pmcd's time of our first fetch; NAN before */
	double			newest;		/* newest record handed over (pmcd's clock) */
	/* the link, in our own clock */
	bool			lost;		/* reconnect before the next fetch */
	double			last_ok;	/* last fetch that brought stackprof values */
	double			down_since;	/* NAN while up */
	unsigned		trouble;	/* enum live_trouble bits since down_since */
	int			down_error;	/* the error said on stderr */
	bool			rebase;		/* next heat map counters: a new baseline */
	uint32_t		pid_seen;	/* pmcd.pid at the last good fetch, 0 before */
	uint64_t		drains_seen;
	bool			have_drains;
};

/* Connect (no lookups yet); -1 with err. */
int live_host_open(struct live_host *h, char *err, size_t errlen);
/* Look up what c needs, and the two restart witnesses; -1 with err. */
int live_host_lookup(struct live_host *h, const struct event_metrics *m,
		     const struct source_consumer *c, char *err, size_t errlen);
/* One poll: reconnect if needed, fetch, hand over; 0 or the consumer's error. */
int live_host_poll(struct live_host *h, const struct source_consumer *c);
/* A window ends at t: a host still down reports its gap so far. */
int live_host_cut(struct live_host *h, const struct source_consumer *c, double t);

#endif /* LIVE_HOST_H */
