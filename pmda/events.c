/*
 * events.c - stackprof.oncpu.stacks through libpcp_pmda's event queues.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int	queue = -1;
static pmID	param_pmid[EP_NPARAMS];

int
events_init(const pmID params[EP_NPARAMS], size_t maxmem)
{
	memcpy(param_pmid, params, sizeof(param_pmid));
	queue = pmdaEventNewQueue("stackprof.oncpu.stacks", maxmem);
	if (queue < 0)
		pmNotifyErr(LOG_ERR, "pmdaEventNewQueue: %s", pmErrStr(queue));
	return queue < 0 ? queue : 0;
}

int
events_append(const struct stack_event *ev, struct timeval *when)
{
	size_t			slen = strlen(ev->stack) + 1;
	size_t			size = offsetof(struct queued_stack, stack) + slen;
	struct queued_stack	*q;
	int			sts;

	if (queue < 0)
		return -EINVAL;
	if ((q = malloc(size)) == NULL)
		return -ENOMEM;
	q->count = ev->count;
	q->value_us = ev->value_us;
	q->pid = ev->pid;
	q->tid = ev->tid;
	snprintf(q->comm, sizeof(q->comm), "%s", ev->comm);
	snprintf(q->process, sizeof(q->process), "%s", ev->process);
	memcpy(q->stack, ev->stack, slen);
	sts = pmdaEventQueueAppend(queue, q, size, when);
	free(q);
	return sts;
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

/* Turn one queued record into an event record; returns records added. */
static int
decode(int array, void *buffer, size_t size, struct timeval *when, void *data)
{
	struct queued_stack	*q = buffer;
	int			sts;

	(void)data;
	if (size <= offsetof(struct queued_stack, stack))
		return 0;	/* cannot happen: we wrote it */
	if ((sts = pmdaEventAddRecord(array, when, PM_EVENT_FLAG_POINT)) < 0 ||
	    (sts = add_string(array, EP_STACK, q->stack)) < 0 ||
	    (sts = add_u64(array, EP_COUNT, q->count)) < 0 ||
	    (sts = add_u32(array, EP_PID, (uint32_t)q->pid)) < 0 ||
	    (sts = add_u32(array, EP_TID, (uint32_t)q->tid)) < 0 ||
	    (sts = add_string(array, EP_COMM, q->comm)) < 0 ||
	    (sts = add_string(array, EP_PROCESS, q->process)) < 0 ||
	    (sts = add_string(array, EP_TYPE, "on-cpu")) < 0 ||
	    (sts = add_u64(array, EP_VALUE, q->value_us)) < 0)
		return sts;
	return 1;
}

int
events_fetch(int context, pmAtomValue *atom)
{
	if (queue < 0)
		return PMDA_FETCH_NOVALUES;
	/* every client may read the records; there is no per-client filter */
	pmdaEventSetAccess(context, queue, 1);
	return pmdaEventQueueRecords(queue, atom, context, decode, NULL);
}

void
events_client_start(int context)
{
	pmdaEventNewClient(context);
}

void
events_client_end(int context)
{
	pmdaEventEndClient(context);
}

int
events_stat_records(pmAtomValue *atom)
{
	return queue < 0 ? PMDA_FETCH_NOVALUES : pmdaEventQueueCounter(queue, atom);
}

int
events_stat_bytes(pmAtomValue *atom)
{
	return queue < 0 ? PMDA_FETCH_NOVALUES : pmdaEventQueueBytes(queue, atom);
}

int
events_stat_memory(pmAtomValue *atom)
{
	return queue < 0 ? PMDA_FETCH_NOVALUES : pmdaEventQueueMemory(queue, atom);
}

int
events_stat_clients(pmAtomValue *atom)
{
	return queue < 0 ? PMDA_FETCH_NOVALUES : pmdaEventQueueClients(queue, atom);
}
