/*
 * events.c - stackprof.oncpu.stacks through libpcp_pmda's event queues.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
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

struct client {
	bool		active;
	uint64_t	next_seq;	/* first record this client has not seen */
};

static struct record	*head, *tail;
static uint64_t		next_seq = 1;
static size_t		queued_bytes, max_bytes;
static struct client	*clients;
static int		nclients;
static int		event_array = -1;
static pmID		param_pmid[EP_NPARAMS];
static struct {
	uint32_t	records;	/* appended (PM_TYPE_U32 counter) */
	uint64_t	bytes;		/* appended */
	uint64_t	dropped;	/* freed before some client saw them */
} counts;

int
events_init(const pmID params[EP_NPARAMS], size_t maxmem)
{
	memcpy(param_pmid, params, sizeof(param_pmid));
	max_bytes = maxmem;
	if ((event_array = pmdaEventNewArray()) < 0)
		pmNotifyErr(LOG_ERR, "pmdaEventNewArray: %s", pmErrStr(event_array));
	return event_array < 0 ? event_array : 0;
}

static struct client *
client_of(int context, bool create)
{
	if (context < 0)
		return NULL;
	if (context >= nclients) {
		int		n = context + 16;
		struct client	*v;

		if (!create || (v = realloc(clients, n * sizeof(*v))) == NULL)
			return NULL;
		memset(v + nclients, 0, (n - nclients) * sizeof(*v));
		clients = v;
		nclients = n;
	}
	return &clients[context];
}

/* The oldest record some active client still has to see. */
static uint64_t
oldest_needed(void)
{
	uint64_t	oldest = next_seq;
	int		i;

	for (i = 0; i < nclients; i++)
		if (clients[i].active && clients[i].next_seq < oldest)
			oldest = clients[i].next_seq;
	return oldest;
}

static void
drop_head(void)
{
	struct record	*r = head;

	head = r->next;
	if (head == NULL)
		tail = NULL;
	queued_bytes -= r->size;
	free(r);
}

/* Free what everyone has seen, then the oldest records beyond the bound. */
static void
trim(void)
{
	uint64_t	oldest = oldest_needed();

	while (head && head->seq < oldest)
		drop_head();
	while (head && queued_bytes > max_bytes) {
		counts.dropped++;
		drop_head();
	}
}

int
events_append(const struct stack_event *ev, struct timeval *when)
{
	size_t		slen = strlen(ev->stack) + 1;
	size_t		size = offsetof(struct record, data.stack) + slen;
	struct record	*r;

	counts.records++;
	counts.bytes += size;
	if (oldest_needed() == next_seq && !head) {
		int	i, any = 0;

		for (i = 0; i < nclients; i++)
			any |= clients[i].active;
		if (!any) {
			next_seq++;	/* nobody listens: nothing to keep */
			return 0;
		}
	}
	if ((r = malloc(size)) == NULL)
		return -ENOMEM;
	r->next = NULL;
	r->seq = next_seq++;
	r->when = *when;
	r->size = size;
	r->data.count = ev->count;
	r->data.value_us = ev->value_us;
	r->data.pid = ev->pid;
	r->data.tid = ev->tid;
	snprintf(r->data.comm, sizeof(r->data.comm), "%s", ev->comm);
	snprintf(r->data.process, sizeof(r->data.process), "%s", ev->process);
	memcpy(r->data.stack, ev->stack, slen);
	if (tail)
		tail->next = r;
	else
		head = r;
	tail = r;
	queued_bytes += size;
	trim();
	return 0;
}

static int
add_string(int array, enum event_param p, const char *s)
{
	pmAtomValue	a;

	a.cp = (char *)s;
	return pmdaEventAddParam(array, param_pmid[p], PM_TYPE_STRING, &a);
}

static int
add_u64(int array, enum event_param p, uint64_t v)
{
	pmAtomValue	a;

	a.ull = v;
	return pmdaEventAddParam(array, param_pmid[p], PM_TYPE_U64, &a);
}

static int
add_u32(int array, enum event_param p, uint32_t v)
{
	pmAtomValue	a;

	a.ul = v;
	return pmdaEventAddParam(array, param_pmid[p], PM_TYPE_U32, &a);
}

/* Turn one queued record into an event record. */
static int
add_record(int array, const struct record *r)
{
	const struct queued_stack	*q = &r->data;
	struct timeval			when = r->when;
	int				sts;

	if ((sts = pmdaEventAddRecord(array, &when, PM_EVENT_FLAG_POINT)) < 0 ||
	    (sts = add_string(array, EP_STACK, q->stack)) < 0 ||
	    (sts = add_u64(array, EP_COUNT, q->count)) < 0 ||
	    (sts = add_u32(array, EP_PID, (uint32_t)q->pid)) < 0 ||
	    (sts = add_u32(array, EP_TID, (uint32_t)q->tid)) < 0 ||
	    (sts = add_string(array, EP_COMM, q->comm)) < 0 ||
	    (sts = add_string(array, EP_PROCESS, q->process)) < 0 ||
	    (sts = add_string(array, EP_TYPE, "on-cpu")) < 0 ||
	    (sts = add_u64(array, EP_VALUE, q->value_us)) < 0)
		return sts;
	return 0;
}

int
events_fetch(int context, pmAtomValue *atom)
{
	struct client	*c = client_of(context, true);
	const struct record *r;
	uint64_t	first = head ? head->seq : next_seq;
	int		nrec = 0, sts;

	if (c == NULL || event_array < 0)
		return PMDA_FETCH_NOVALUES;
	if (!c->active) {
		/* first fetch: records from now on */
		c->active = true;
		c->next_seq = next_seq;
		return PMDA_FETCH_NOVALUES;
	}
	pmdaEventResetArray(event_array);
	if (c->next_seq < first) {
		/* dropped by the memory bound before this client came back */
		struct timeval	now;

		gettimeofday(&now, NULL);
		if ((sts = pmdaEventAddMissedRecord(event_array, &now, (int)(first - c->next_seq))) < 0)
			return sts;
		nrec++;
		c->next_seq = first;
	}
	for (r = head; r != NULL; r = r->next) {
		if (r->seq < c->next_seq)
			continue;
		if ((sts = add_record(event_array, r)) < 0)
			return sts;
		nrec++;
	}
	c->next_seq = next_seq;
	trim();
	if (nrec == 0)
		return PMDA_FETCH_NOVALUES;
	atom->vbp = (pmValueBlock *)pmdaEventGetAddr(event_array);
	return PMDA_FETCH_STATIC;
}

void
events_client_start(int context)
{
	struct client	*c = client_of(context, true);

	if (c && !c->active) {
		c->active = true;
		c->next_seq = next_seq;
	}
}

void
events_client_end(int context)
{
	struct client	*c = client_of(context, false);

	if (c) {
		c->active = false;
		trim();
	}
}

int
events_stat_records(pmAtomValue *atom)
{
	atom->ul = counts.records;
	return PMDA_FETCH_STATIC;
}

int
events_stat_bytes(pmAtomValue *atom)
{
	atom->ull = counts.bytes;
	return PMDA_FETCH_STATIC;
}

int
events_stat_memory(pmAtomValue *atom)
{
	atom->ull = queued_bytes;
	return PMDA_FETCH_STATIC;
}

int
events_stat_clients(pmAtomValue *atom)
{
	int	i;

	atom->ul = 0;
	for (i = 0; i < nclients; i++)
		atom->ul += clients[i].active;
	return PMDA_FETCH_STATIC;
}

int
events_stat_dropped(pmAtomValue *atom)
{
	atom->ull = counts.dropped;
	return PMDA_FETCH_STATIC;
}
