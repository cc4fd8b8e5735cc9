/*
 * events.c - event metrics (stackprof.oncpu.stacks) from our own record queue.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "cursors.h"
#include "events.h"
#include "window.h"

/* What one queued record holds: fixed fields, then the stack text. */
struct queued_stack {
	uint64_t	count;
	uint64_t	value_us;
	int32_t		pid, tid;
	char		comm[WINDOW_NAME_LEN];
	char		process[WINDOW_NAME_LEN];
	char		stack[];
};

/*
 * Our own queue, not libpcp_pmda's pmdaEventQueue*: in PCP 6.0.3 a client
 * fetching faster than another was handed the same records again (qa/017
 * caught it).  Records carry a sequence number; each client context keeps
 * the next number it has to see, so it sees every record once, and a
 * record is freed as soon as every client has passed it.
 */
struct record {
	struct record	*next;
	uint64_t	seq;
	struct timeval	when;
	size_t		size;
	struct queued_stack data;
};

struct event_queue {
	struct record	*head, *tail;
	uint64_t	next_seq;
	size_t		queued_bytes, max_bytes;
	struct cursors	clients;
	int		event_array;	/* libpcp_pmda's buffer for fetches */
	pmID		param_pmid[EP_NPARAMS];
	const char	*type;		/* the .type parameter of every record */
	struct {
		uint32_t	records;	/* appended (PM_TYPE_U32 counter) */
		uint64_t	bytes;		/* appended */
		uint64_t	dropped;	/* freed before some client saw them */
	} counts;
};

struct event_queue *
events_new(const char *type, size_t maxmem)
{
	struct event_queue	*q = calloc(1, sizeof(*q));

	if (q == NULL)
		return NULL;
	q->next_seq = 1;
	q->max_bytes = maxmem;
	q->event_array = -1;
	q->type = type;
	return q;
}

void
events_free(struct event_queue *q)
{
	if (q == NULL)
		return;
	while (q->head) {
		struct record	*r = q->head;

		q->head = r->next;
		free(r);
	}
	if (q->event_array >= 0)
		pmdaEventReleaseArray(q->event_array);
	cursors_free(&q->clients);
	free(q);
}

int
events_set_params(struct event_queue *q, const pmID params[EP_NPARAMS])
{
	memcpy(q->param_pmid, params, sizeof(q->param_pmid));
	if (q->event_array < 0 && (q->event_array = pmdaEventNewArray()) < 0)
		pmNotifyErr(LOG_ERR, "pmdaEventNewArray: %s", pmErrStr(q->event_array));
	return q->event_array < 0 ? q->event_array : 0;
}

static void
drop_head(struct event_queue *q)
{
	struct record	*r = q->head;

	q->head = r->next;
	if (q->head == NULL)
		q->tail = NULL;
	q->queued_bytes -= r->size;
	free(r);
}

/* Free what everyone has seen, then the oldest records beyond the bound. */
static void
trim(struct event_queue *q)
{
	uint64_t	oldest = cursors_oldest(&q->clients, q->next_seq);

	while (q->head && q->head->seq < oldest)
		drop_head(q);
	while (q->head && q->queued_bytes > q->max_bytes) {
		q->counts.dropped++;
		drop_head(q);
	}
}

int
events_append(struct event_queue *q, const struct stack_event *ev, struct timeval *when)
{
	size_t		slen = strlen(ev->stack) + 1;
	size_t		size = offsetof(struct record, data.stack) + slen;
	struct record	*r;

	q->counts.records++;
	q->counts.bytes += size;
	if (q->head == NULL && cursors_active(&q->clients) == 0) {
		q->next_seq++;	/* nobody listens: nothing to keep */
		return 0;
	}
	if ((r = malloc(size)) == NULL)
		return -ENOMEM;
	r->next = NULL;
	r->seq = q->next_seq++;
	r->when = *when;
	r->size = size;
	r->data.count = ev->count;
	r->data.value_us = ev->value_us;
	r->data.pid = ev->pid;
	r->data.tid = ev->tid;
	snprintf(r->data.comm, sizeof(r->data.comm), "%s", ev->comm);
	snprintf(r->data.process, sizeof(r->data.process), "%s", ev->process);
	memcpy(r->data.stack, ev->stack, slen);
	if (q->tail)
		q->tail->next = r;
	else
		q->head = r;
	q->tail = r;
	q->queued_bytes += size;
	trim(q);
	return 0;
}

static int
add_param(const struct event_queue *q, enum event_param p, int type, pmAtomValue *a)
{
	return pmdaEventAddParam(q->event_array, q->param_pmid[p], type, a);
}

static int
add_string(const struct event_queue *q, enum event_param p, const char *s)
{
	pmAtomValue	a = { .cp = (char *)s };

	return add_param(q, p, PM_TYPE_STRING, &a);
}

static int
add_u64(const struct event_queue *q, enum event_param p, uint64_t v)
{
	pmAtomValue	a = { .ull = v };

	return add_param(q, p, PM_TYPE_U64, &a);
}

static int
add_u32(const struct event_queue *q, enum event_param p, uint32_t v)
{
	pmAtomValue	a = { .ul = v };

	return add_param(q, p, PM_TYPE_U32, &a);
}

/* Turn one queued record into an event record. */
static int
add_record(const struct event_queue *q, const struct record *r)
{
	const struct queued_stack	*d = &r->data;
	struct timeval			when = r->when;
	int				sts;

	if ((sts = pmdaEventAddRecord(q->event_array, &when, PM_EVENT_FLAG_POINT)) < 0 ||
	    (sts = add_string(q, EP_STACK, d->stack)) < 0 ||
	    (sts = add_u64(q, EP_COUNT, d->count)) < 0 ||
	    (sts = add_u32(q, EP_PID, (uint32_t)d->pid)) < 0 ||
	    (sts = add_u32(q, EP_TID, (uint32_t)d->tid)) < 0 ||
	    (sts = add_string(q, EP_COMM, d->comm)) < 0 ||
	    (sts = add_string(q, EP_PROCESS, d->process)) < 0 ||
	    (sts = add_string(q, EP_TYPE, q->type)) < 0 ||
	    (sts = add_u64(q, EP_VALUE, d->value_us)) < 0)
		return sts;
	return 0;
}

int
events_fetch(struct event_queue *q, int context, pmAtomValue *atom)
{
	struct cursor	*c = cursors_get(&q->clients, context, true);
	const struct record *r;
	uint64_t	first = q->head ? q->head->seq : q->next_seq;
	int		nrec = 0, sts;

	if (c == NULL || q->event_array < 0)
		return PMDA_FETCH_NOVALUES;
	if (!c->active) {
		/* first fetch: records from now on */
		c->active = true;
		c->next_seq = q->next_seq;
		return PMDA_FETCH_NOVALUES;
	}
	pmdaEventResetArray(q->event_array);
	if (c->next_seq < first) {
		/* dropped by the memory bound before this client came back */
		struct timeval	now;

		gettimeofday(&now, NULL);
		if ((sts = pmdaEventAddMissedRecord(q->event_array, &now, (int)(first - c->next_seq))) < 0)
			return sts;
		nrec++;
		c->next_seq = first;
	}
	for (r = q->head; r != NULL; r = r->next) {
		if (r->seq < c->next_seq)
			continue;
		if ((sts = add_record(q, r)) < 0)
			return sts;
		nrec++;
	}
	c->next_seq = q->next_seq;
	trim(q);
	if (nrec == 0)
		return PMDA_FETCH_NOVALUES;
	atom->vbp = (pmValueBlock *)pmdaEventGetAddr(q->event_array);
	return PMDA_FETCH_STATIC;
}

void
events_client_start(struct event_queue *q, int context)
{
	struct cursor	*c = cursors_get(&q->clients, context, true);

	if (c && !c->active) {
		c->active = true;
		c->next_seq = q->next_seq;
	}
}

void
events_client_end(struct event_queue *q, int context)
{
	struct cursor	*c = cursors_get(&q->clients, context, false);

	if (c) {
		c->active = false;
		trim(q);
	}
}

void
events_get_stats(const struct event_queue *q, struct event_stats *st)
{
	st->records = q->counts.records;
	st->bytes = q->counts.bytes;
	st->queued_bytes = q->queued_bytes;
	st->clients = cursors_active(&q->clients);
	st->dropped = q->counts.dropped;
}
