/*
 * events.h - the stackprof.oncpu.stacks event queue.
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

/* Parameters of a record, in the order of the PMIDs given to events_init. */
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

/* maxmem bounds the bytes queued for clients that have not fetched yet. */
int events_init(const pmID params[EP_NPARAMS], size_t maxmem);
int events_append(const struct stack_event *ev, struct timeval *when);

/* Fetch the records this client has not seen yet (for the fetch callback). */
int events_fetch(int context, pmAtomValue *atom);
/* A client context appeared or went away. */
void events_client_start(int context);
void events_client_end(int context);

/* Queue figures for stackprof.stats.events.* (PMDA_FETCH_* codes). */
int events_stat_records(pmAtomValue *atom);
int events_stat_bytes(pmAtomValue *atom);
int events_stat_memory(pmAtomValue *atom);
int events_stat_clients(pmAtomValue *atom);
int events_stat_dropped(pmAtomValue *atom);

#endif /* EVENTS_H */
