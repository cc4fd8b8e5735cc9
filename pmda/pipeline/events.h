/*
 * events.h - the queue behind an event metric (stackprof.oncpu.stacks).
 *
 * One record per (process, thread, stack) of a drain interval, appended at
 * drain time.  Each client context (pmlogger included) has a cursor, so it
 * sees each record once, from its first fetch on; records a slow client
 * never fetched are dropped by the queue's memory bound and reported to it
 * as a "missed" record.
 */
#ifndef EVENTS_H
#define EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>
#include <pcp/pmapi.h>

/* Parameters of a record, in the order of the PMIDs given to events_set_params. */
enum event_param {
	EP_STACK, EP_COUNT, EP_PID, EP_TID, EP_COMM, EP_PROCESS, EP_TYPE, EP_VALUE,
	EP_NPARAMS
};

struct stack_event {
	const char	*stack;		/* frames only, ';'-joined */
	uint64_t	count;		/* samples */
	uint64_t	value_us;	/* count * 10^6 / frequency */
	pid_t		pid, tid;
	const char	*comm;		/* thread name */
	const char	*process;	/* process name */
};

struct event_queue;

/* A queue of records whose .type parameter is type ("on-cpu"); maxmem
 * bounds the bytes queued for clients that have not fetched yet.  NULL
 * when out of memory. */
struct event_queue *events_new(const char *type, size_t maxmem);
void events_free(struct event_queue *q);
/* The PMIDs of the parameters, known once pmdaInit has set the domain;
 * until then fetches answer no values. */
int events_set_params(struct event_queue *q, const pmID params[EP_NPARAMS]);
int events_append(struct event_queue *q, const struct stack_event *ev, struct timeval *when);

/* Fetch the records this client has not seen yet (for the fetch callback). */
int events_fetch(struct event_queue *q, int context, pmAtomValue *atom);
/* A client context appeared or went away. */
void events_client_start(struct event_queue *q, int context);
void events_client_end(struct event_queue *q, int context);

/* The queue's figures (events_stats.c serves them). */
struct event_stats {
	uint64_t	records;	/* appended; wraps at 2^32 (a U32 counter) */
	uint64_t	bytes;		/* appended */
	uint64_t	queued_bytes;	/* held for clients now */
	uint64_t	clients;	/* contexts with a cursor now */
	uint64_t	dropped;	/* freed before some client saw them */
};
void events_get_stats(const struct event_queue *q, struct event_stats *st);

/* The queue's stats (events_stats.c), over struct event_stats. */
struct stat_table;
extern const struct stat_table events_stat_table;

#endif /* EVENTS_H */
