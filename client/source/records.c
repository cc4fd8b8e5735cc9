/*
 * records.c - event records of stackprof.<event>.stacks to stack_samples.
 *
 * The parameter names are part of the contract in docs/design.md
 * ("Metrics"); their types are looked up rather than assumed, so the
 * PMDA may choose u32 or u64 counts, and both event flavours are read.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "records.h"

/* count * 10^6 / hz: a sample stands for one period of the sampling clock */
static uint64_t
samples_us(uint64_t count, unsigned hz)
{
	return hz ? count * 1000000u / hz : 0;
}

/* off-CPU counts are microseconds, page-fault counts faults: their own value */
static uint64_t
count_itself(uint64_t count, unsigned hz)
{
	(void)hz;
	return count;
}

static const struct event_metrics events[] = {
	{ "on-cpu", "stackprof.oncpu.stacks", "stackprof.oncpu.record.",
	  "stackprof.oncpu.history", samples_us },
	{ "off-cpu", "stackprof.offcpu.stacks", "stackprof.offcpu.record.",
	  "stackprof.offcpu.history", count_itself },
	{ "off-wake", "stackprof.offwake.stacks", "stackprof.offwake.record.",
	  "stackprof.offwake.history", count_itself },
	{ "page-fault", "stackprof.pagefault.stacks", "stackprof.pagefault.record.",
	  "stackprof.pagefault.history", count_itself },
};

const struct event_metrics *
event_metrics_find(const char *event)
{
	size_t	i;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (strcmp(events[i].event, event) == 0)
			return &events[i];
	return NULL;
}

static const char *const param_names[RP_NPARAMS] = {
	"stack", "count", "pid", "tid", "comm", "process", "type", "value",
};

int
record_ids_lookup(const struct event_metrics *m, const char *where, const char *hint,
		  struct record_ids *ids, char *err, size_t errlen)
{
	char		names[RP_NPARAMS][128];
	const char	*namelist[RP_NPARAMS];
	const char	*stacks = m->stacks;
	pmDesc		desc;
	int		i, sts;

	if ((sts = pmLookupName(1, &stacks, &ids->stacks)) < 0 ||
	    (sts = pmLookupDesc(ids->stacks, &desc)) < 0) {
		snprintf(err, errlen, "%s: no %s: %s (%s)", where, m->stacks, pmErrStr(sts), hint);
		return -1;
	}
	if (desc.type != PM_TYPE_EVENT && desc.type != PM_TYPE_HIGHRES_EVENT) {
		snprintf(err, errlen, "%s: %s is not an event metric", where, m->stacks);
		return -1;
	}
	ids->stacks_type = desc.type;
	for (i = 0; i < RP_NPARAMS; i++) {
		snprintf(names[i], sizeof(names[i]), "%s%s", m->prefix, param_names[i]);
		namelist[i] = names[i];
	}
	/* a name missing from an archive that logged no record yet is no error:
	 * pmLookupName then reports it as PM_ID_NULL and records lack it too */
	pmLookupName(RP_NPARAMS, namelist, ids->param);
	for (i = 0; i < RP_NPARAMS; i++) {
		ids->type[i] = PM_TYPE_UNKNOWN;
		if (ids->param[i] != PM_ID_NULL && pmLookupDesc(ids->param[i], &desc) >= 0)
			ids->type[i] = desc.type;
	}
	return 0;
}

/*
 * Whether the idx'th event array of vs can be unpacked safely.  libpcp
 * 6.0.3's own check (before pmUnpack[HighRes]EventRecords) walks records and
 * parameters but not the length of each value: a parameter shorter than its
 * header makes the unpack memcpy a negative length, one shorter than its
 * type reads past the array.  pmcd relays what a PMDA packed and an archive
 * holds what its disk kept, so every length is checked here first.
 */
#define PDU_BYTES(n)	(((size_t)(n) + 3) & ~(size_t)3)

static bool
param_sound(const char *at, const char *end, size_t *size)
{
	pmEventParameter	ep;
	size_t			min;

	if ((size_t)(end - at) < sizeof(ep))
		return false;
	memcpy(&ep, at, sizeof(ep));
	switch (ep.ep_type) {
	case PM_TYPE_32: case PM_TYPE_U32: case PM_TYPE_FLOAT:
		min = PM_VAL_HDR_SIZE + 4;
		break;
	case PM_TYPE_64: case PM_TYPE_U64: case PM_TYPE_DOUBLE:
		min = PM_VAL_HDR_SIZE + 8;
		break;
	case PM_TYPE_STRING: case PM_TYPE_AGGREGATE: case PM_TYPE_AGGREGATE_STATIC:
		min = PM_VAL_HDR_SIZE;
		break;
	default:
		return false;
	}
	*size = sizeof(ep.ep_pmid) + PDU_BYTES(ep.ep_len);
	return ep.ep_len >= min && *size <= (size_t)(end - at);
}

static int
event_array_sound(const pmValueSet *vs, int idx, int type)
{
	const pmValueBlock	*vb;
	const char		*at, *end;
	size_t			head = type == PM_TYPE_HIGHRES_EVENT ? sizeof(pmTimespec) : sizeof(pmTimeval);
	int			nrecords, r, p;

	if (vs->valfmt != PM_VAL_DPTR && vs->valfmt != PM_VAL_SPTR)
		return PM_ERR_CONV;
	vb = vs->vlist[idx].value.pval;
	if (vb->vtype != type)
		return PM_ERR_TYPE;
	if (vb->vlen < PM_VAL_HDR_SIZE + sizeof(int))
		return PM_ERR_TOOSMALL;
	at = (const char *)vb + PM_VAL_HDR_SIZE;
	end = (const char *)vb + vb->vlen;
	memcpy(&nrecords, at, sizeof(int));
	at += sizeof(int);
	for (r = 0; r < nrecords; r++) {
		unsigned	flags;
		int		nparams;
		size_t		size;

		if ((size_t)(end - at) < head + 2 * sizeof(int))
			return PM_ERR_TOOBIG;
		memcpy(&flags, at + head, sizeof(flags));
		memcpy(&nparams, at + head + sizeof(flags), sizeof(nparams));
		at += head + 2 * sizeof(int);
		if (flags & PM_EVENT_FLAG_MISSED) {
			if (flags != PM_EVENT_FLAG_MISSED)
				return PM_ERR_CONV;
			continue;	/* nparams counts missed records */
		}
		if (nparams < 0)
			return PM_ERR_TOOSMALL;
		for (p = 0; p < nparams; p++, at += size)
			if (!param_sound(at, end, &size))
				return PM_ERR_TOOBIG;
	}
	return nrecords < 0 ? PM_ERR_TOOSMALL : 0;
}

/* The parameters of one record, as strings and numbers. */
struct record {
	char		*str[RP_NPARAMS];
	uint64_t	num[RP_NPARAMS];
	unsigned	have;		/* bit per enum record_param */
};

/* The type a value really has: an unpacked value carries it, and the
 * metadata (a damaged archive's, say) may claim another. */
static int
value_type(const pmValueSet *vs, int claimed)
{
	if (vs->valfmt == PM_VAL_INSITU)
		return claimed == PM_TYPE_32 ? PM_TYPE_32 : PM_TYPE_U32;
	return vs->vlist[0].value.pval->vtype;
}

static void
record_read(struct record *r, const pmValueSet *const *vset, int numpmid,
	    const struct record_ids *ids)
{
	pmAtomValue	atom;
	int		j, k, type;

	memset(r, 0, sizeof(*r));
	for (j = 0; j < numpmid; j++) {
		const pmValueSet	*vs = vset[j];

		for (k = 0; k < RP_NPARAMS && ids->param[k] != vs->pmid; k++)
			;
		if (k == RP_NPARAMS || vs->numval < 1 || (r->have & (1u << k)))
			continue;
		/* a string where the metadata says string, a number where it
		 * says number: anything else is a parameter the record lacks */
		type = value_type(vs, ids->type[k]);
		if ((ids->type[k] == PM_TYPE_STRING) != (type == PM_TYPE_STRING) ||
		    type == PM_TYPE_AGGREGATE || type == PM_TYPE_AGGREGATE_STATIC)
			continue;
		if (pmExtractValue(vs->valfmt, &vs->vlist[0], type, &atom,
				   type == PM_TYPE_STRING ? PM_TYPE_STRING : PM_TYPE_U64) < 0)
			continue;
		if (type == PM_TYPE_STRING)
			r->str[k] = atom.cp;
		else
			r->num[k] = atom.ull;
		r->have |= 1u << k;
	}
}

static void
record_free(struct record *r)
{
	int	k;

	for (k = 0; k < RP_NPARAMS; k++)
		free(r->str[k]);
}

int
records_offer(const struct stack_sample *s, double from, double to,
	      stack_sample_fn fn, void *arg, struct record_counts *c)
{
	int	sts;

	if (s->time <= from) {
		c->before++;
		return 0;
	}
	if (s->time > to) {
		c->after++;
		return 0;
	}
	if ((sts = fn(arg, s)) == 0) {
		c->records++;
		if (s->time < c->first)
			c->first = s->time;
		if (s->time > c->last)
			c->last = s->time;
	}
	return sts;
}

/* Hand one decoded record over; 1 if it lacked what a sample needs. */
static int
record_deliver(const struct record *r, const char *host, double t, double from, double to,
	       stack_sample_fn fn, void *arg, struct record_counts *c)
{
	struct stack_sample	s = {
		.host = host, .time = t,
		.stack = r->str[RP_STACK], .count = r->num[RP_COUNT],
		.pid = (uint32_t)r->num[RP_PID], .tid = (uint32_t)r->num[RP_TID],
		.thread = r->str[RP_COMM], .process = r->str[RP_PROCESS],
		.event = r->str[RP_TYPE], .value_us = r->num[RP_VALUE],
	};

	/* the stack must be text, whatever types the metadata gave */
	if (s.stack == NULL || !(r->have & (1u << RP_COUNT)))
		return 1;
	if (s.process == NULL || s.process[0] == '\0')	/* the thread name is the best we have */
		s.process = s.thread ? s.thread : "[unknown]";
	return records_offer(&s, from, to, fn, arg, c);
}

static int
deliver_one(const pmValueSet *const *vset, int numpmid, double t,
	    const struct record_ids *ids, const char *host, double from, double to,
	    stack_sample_fn fn, void *arg, struct record_counts *c)
{
	struct record	r;
	int		sts;

	/* outside the range: not worth unpacking */
	if (t <= from || t > to) {
		struct stack_sample	s = { .time = t };

		return records_offer(&s, from, to, fn, arg, c);
	}
	record_read(&r, vset, numpmid, ids);
	sts = record_deliver(&r, host, t, from, to, fn, arg, c);
	record_free(&r);
	if (sts == 1) {
		c->malformed++;
		return 0;
	}
	return sts;
}

int
records_deliver(const pmValueSet *vs, const struct record_ids *ids, const char *host,
		double from, double to, stack_sample_fn fn, void *arg,
		struct record_counts *c)
{
	int	i, n, r, sts = 0;

	for (i = 0; i < vs->numval && sts == 0; i++) {
		if ((n = event_array_sound(vs, i, ids->stacks_type)) < 0)
			return n;
		if (ids->stacks_type == PM_TYPE_HIGHRES_EVENT) {
			pmHighResResult	**res;

			if ((n = pmUnpackHighResEventRecords((pmValueSet *)vs, i, &res)) < 0)
				return n;
			for (r = 0; r < n && sts == 0; r++)
				sts = deliver_one((const pmValueSet *const *)res[r]->vset,
						  res[r]->numpmid,
						  res[r]->timestamp.tv_sec + res[r]->timestamp.tv_nsec / 1e9,
						  ids, host, from, to, fn, arg, c);
			if (n > 0)
				pmFreeHighResEventResult(res);
		} else {
			pmResult	**res;

			if ((n = pmUnpackEventRecords((pmValueSet *)vs, i, &res)) < 0)
				return n;
			for (r = 0; r < n && sts == 0; r++)
				sts = deliver_one((const pmValueSet *const *)res[r]->vset,
						  res[r]->numpmid,
						  res[r]->timestamp.tv_sec + res[r]->timestamp.tv_usec / 1e6,
						  ids, host, from, to, fn, arg, c);
			if (n > 0)
				pmFreeEventResult(res);
		}
	}
	return sts;
}
