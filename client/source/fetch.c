/*
 * fetch.c - one fetch's metrics and the delivery of its result (fetch.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fetch.h"

#define MAX_SLICES	1000		/* SP_HEATMAP_MAX_SLOTS */

/* optional: archives need not log it; records then cover 1 s */
static void
lookup_interval(struct fetch_set *f)
{
	const char	*interval = INTERVAL_METRIC;

	if (pmLookupName(1, &interval, &f->interval) < 0)
		f->interval = PM_ID_NULL;
}

static int
lookup_heat(struct fetch_set *f, const char *where, bool archive, char *err, size_t errlen)
{
	const char	*heat = HEATMAP_METRIC;
	pmDesc		d;
	int		sts;

	lookup_interval(f);
	if (f->hist != NULL)
		return 0;	/* the history's heat lines serve */
	if ((sts = pmLookupName(1, &heat, &f->heat)) < 0 ||
	    (sts = pmLookupDesc(f->heat, &d)) < 0) {
		snprintf(err, errlen, "%s: no %s: %s (is the stackprof PMDA installed%s?)",
			 where, HEATMAP_METRIC, pmErrStr(sts),
			 archive ? " and the heat map logged" : "");
		return -1;
	}
	return 0;
}

/* The archive logged the history: read it instead of records. */
static int
lookup_history(struct fetch_set *f, const struct event_metrics *m, char *err, size_t errlen)
{
	const char	*name = m->history;
	pmDesc		d;

	if (pmLookupName(1, &name, &f->history) < 0 || pmLookupDesc(f->history, &d) < 0 ||
	    d.type != PM_TYPE_STRING) {
		f->history = PM_ID_NULL;
		return 0;
	}
	if ((f->hist = history_reader_new(m->event, m->value)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	f->have_stacks = true;
	return 0;
}

void
fetch_free(struct fetch_set *f)
{
	history_reader_free(f->hist);
	f->hist = NULL;
}

int
fetch_lookup(struct fetch_set *f, const struct event_metrics *m,
	     const struct source_consumer *c, const char *where, bool archive,
	     char *err, size_t errlen)
{
	char	e2[512];

	memset(f, 0, sizeof(*f));
	f->heat = f->interval = f->history = PM_ID_NULL;
	f->drain = 1.0;
	if (archive && lookup_history(f, m, err, errlen) < 0)
		return -1;
	if (c->counters != NULL && lookup_heat(f, where, archive, err, errlen) < 0) {
		if (!c->heat_optional)
			return -1;
		f->heat = PM_ID_NULL;	/* what wants it goes without */
	}
	if (f->hist == NULL)
		f->have_stacks = record_ids_lookup(m, where, archive ? "did pmlogger log it?" :
					   "is the stackprof PMDA installed?", &f->ids,
					   e2, sizeof(e2)) == 0;
	if (!f->have_stacks && !c->stacks_optional) {
		snprintf(err, errlen, "%s", e2);
		return -1;
	}
	if (!f->have_stacks)
		fprintf(stderr, "%s: warning: %s; the heat map has no stacks to select\n",
			pmGetProgname(), e2);
	/* the interval first: it dates the records of the same result */
	if (f->interval != PM_ID_NULL)
		f->pmids[f->npmids++] = f->interval;
	if (f->heat != PM_ID_NULL)
		f->pmids[f->npmids++] = f->heat;
	if (f->hist != NULL)
		f->pmids[f->npmids++] = f->history;
	else if (f->have_stacks)
		f->pmids[f->npmids++] = f->ids.stacks;
	return 0;
}

/* The per-slice values of one fetch, by instance (the slice's offset in ms). */
static int
heat_values(const pmValueSet *vs, uint64_t *v, unsigned *n)
{
	pmAtomValue	atom;
	unsigned	k = (unsigned)vs->numval, width;
	int		i;

	if (vs->numval <= 0 || k > MAX_SLICES || 1000 % k != 0)
		return -1;
	width = 1000 / k;
	memset(v, 0, k * sizeof(*v));
	for (i = 0; i < vs->numval; i++) {
		int	inst = vs->vlist[i].inst;

		if (inst < 0 || inst % width != 0 || (unsigned)inst / width >= k ||
		    pmExtractValue(vs->valfmt, &vs->vlist[i], PM_TYPE_U64, &atom, PM_TYPE_U64) < 0)
			return -1;
		v[inst / width] = atom.ull;
	}
	*n = k;
	return 0;
}

static int
deliver_heat(struct fetch_set *f, const pmValueSet *vs, const char *host, double t,
	     bool restart, const struct source_consumer *c, struct fetch_counts *n)
{
	uint64_t		v[MAX_SLICES];
	struct heat_counters	hc = { .host = host, .time = t, .values = v,
				       .drain = f->drain, .restart = restart };

	if (heat_values(vs, v, &hc.n) < 0) {
		n->bad_heat++;
		return 0;
	}
	return c->counters(c->arg, &hc);
}

/* Records go to sample or near by their timestamp; a consumer's failure is
 * told apart from libpcp's failure to unpack. */
struct dispatch {
	const struct source_consumer	*c;
	const struct fetch_range	*r;
	struct fetch_counts		*n;
	int				consumer_sts;
};

static int
dispatch(void *arg, const struct stack_sample *s)
{
	struct dispatch	*d = arg;
	int		sts = 0;

	if (s->time > d->r->from && s->time <= d->r->to) {
		sts = d->c->sample(d->c->arg, s);
		d->n->in_window++;
		if (s->time < d->n->first)
			d->n->first = s->time;
		if (s->time > d->n->last)
			d->n->last = s->time;
	} else if (d->c->near != NULL)
		sts = d->c->near(d->c->arg, s);
	if (sts < 0)
		d->consumer_sts = sts;
	return sts;
}

/* Where a history's heat lines go. */
struct heat_sink {
	struct fetch_set		*f;
	const char			*host;
	const struct source_consumer	*c;
};

/*
 * One drain's heat line as the counters the heat map code reads: a
 * baseline one drain interval before it, then the running totals with
 * this drain's counts added, so each drain's counts land in the seconds
 * its drain time says, whatever gaps lie between lines.
 */
static int
heat_line(void *arg, double t, const uint64_t *counts, unsigned n)
{
	struct heat_sink	*hs = arg;
	struct fetch_set	*f = hs->f;
	struct heat_counters	hc = { .host = hs->host, .time = t - f->drain,
				       .values = f->heat_total, .n = n, .drain = f->drain,
				       .restart = true };
	unsigned		i;
	int			sts;

	if (n != f->heat_n) {
		memset(f->heat_total, 0, sizeof(f->heat_total));
		f->heat_n = n;
	}
	if ((sts = hs->c->counters(hs->c->arg, &hc)) < 0)
		return sts;
	for (i = 0; i < n; i++)
		f->heat_total[i] += counts[i];
	hc.time = t;
	hc.restart = false;
	return hs->c->counters(hs->c->arg, &hc);
}

/* One value of the history's text, wherever it was read. */
static int
history_text(struct fetch_set *f, const char *text, const char *host,
	     const struct fetch_range *r, struct dispatch *d, struct fetch_counts *n)
{
	struct heat_sink	hs = { f, host, d->c };

	return history_deliver(f->hist, text, host, r->near_from, r->near_to, dispatch, d,
			       d->c->counters ? heat_line : NULL, &hs, &n->records);
}

/* One value of the history; a string libpcp cannot extract is skipped
 * and counted (archives are untrusted), like a malformed line in it. */
static int
deliver_history(struct fetch_set *f, const pmValueSet *vs, const char *host,
		const struct fetch_range *r, struct dispatch *d, struct fetch_counts *n)
{
	pmAtomValue		atom;
	int			sts;

	if (pmExtractValue(vs->valfmt, &vs->vlist[0], PM_TYPE_STRING, &atom, PM_TYPE_STRING) < 0) {
		n->records.malformed++;
		return 0;
	}
	sts = history_text(f, atom.cp, host, r, d, n);
	free(atom.cp);
	return sts;
}

int
fetch_history_init(struct fetch_set *f, const struct event_metrics *m)
{
	memset(f, 0, sizeof(*f));
	f->heat = f->interval = f->history = PM_ID_NULL;
	f->drain = 1.0;
	f->have_stacks = true;
	return (f->hist = history_reader_new(m->event, m->value)) == NULL ? -ENOMEM : 0;
}

int
fetch_history_text(struct fetch_set *f, const char *text, const char *host,
		   const struct fetch_range *r, const struct source_consumer *c,
		   struct fetch_counts *n)
{
	struct dispatch	d = { c, r, n, 0 };

	return history_text(f, text, host, r, &d, n);
}

int
fetch_deliver(struct fetch_set *f, const pmResult *rp, const char *host,
	      const struct fetch_range *r, bool restart,
	      const struct source_consumer *c, struct fetch_counts *n)
{
	struct dispatch	d = { c, r, n, 0 };
	double		t = rp->timestamp.tv_sec + rp->timestamp.tv_usec / 1e6;
	pmAtomValue	atom;
	int		j, sts = 0;

	for (j = 0; j < rp->numpmid && sts == 0; j++) {
		const pmValueSet *vs = rp->vset[j];

		if (vs->numval <= 0)
			continue;
		if (vs->pmid == f->interval) {
			if (pmExtractValue(vs->valfmt, &vs->vlist[0], PM_TYPE_U32, &atom,
					   PM_TYPE_U32) >= 0 && atom.ul > 0)
				f->drain = atom.ul / 1000.0;
		} else if (vs->pmid == f->heat)
			sts = deliver_heat(f, vs, host, t, restart, c, n);
		else if (f->hist != NULL && vs->pmid == f->history)
			sts = deliver_history(f, vs, host, r, &d, n);
		else if (f->have_stacks && vs->pmid == f->ids.stacks) {
			sts = records_deliver(vs, &f->ids, host, r->near_from, r->near_to,
					      dispatch, &d, &n->records);
			if (sts < 0 && d.consumer_sts == 0) {
				n->decode_error = sts;	/* libpcp's, not the consumer's */
				sts = 0;
			}
		}
	}
	return sts;
}
