/*
 * history_flame.c - the last drain as flame-graph instances (see
 * history_flame() in history.h), built only when a client asks.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "history_priv.h"
#include "lib/array.h"

void
hist_flame_free(struct history *h)
{
	free(h->last);
	free(h->flame);
	free(h->lbuf);
}

/* Append "    " s[0..n) "\n" to h->lbuf at *len. */
static int
line(struct history *h, size_t *len, const char *s, size_t n)
{
	if (array_reserve(&h->lbuf, &h->lbufcap, *len + n + 6) < 0)
		return -ENOMEM;
	memcpy(h->lbuf + *len, "    ", 4);
	memcpy(h->lbuf + *len + 4, s, n);
	h->lbuf[*len + 4 + n] = '\n';
	*len += n + 5;
	h->lbuf[*len] = '\0';
	return 0;
}

/* "\n    leaf\n ... \n    [t] COMM TID\n    PROCESS PID\n" for a pair. */
static char *
label_of(struct history *h, const struct hist_entry *t, const struct hist_entry *s)
{
	char		who[64];
	const char	*tab = strchr(t->key, '\t'), *comm, *sp = strchr(t->key, ' ');
	unsigned	tid;
	size_t		len = 0;
	int		i, n;

	/* the key: "PID[.GEN] TID COMM<tab>PROCESS" */
	if (tab == NULL || sp == NULL || sscanf(sp + 1, "%u", &tid) != 1 ||
	    (comm = strchr(sp + 1, ' ')) == NULL)
		return NULL;
	comm++;
	if (line(h, &len, "", 0) < 0)
		return NULL;
	len = 1;	/* the label starts with a bare newline, as bpftrace's */
	h->lbuf[0] = '\n';
	for (i = (int)s->nparts - 1; i >= 0; i--)
		if (line(h, &len, s->parts[i]->key, strlen(s->parts[i]->key)) < 0)
			return NULL;
	n = snprintf(who, sizeof(who), "[t] %.*s %u", (int)(tab - comm), comm, tid);
	if (line(h, &len, who, (size_t)n) < 0)
		return NULL;
	n = snprintf(who, sizeof(who), "%s %.*s", tab + 1, (int)(sp - t->key), t->key);
	if (line(h, &len, who, (size_t)n) < 0)
		return NULL;
	return strdup(h->lbuf);
}

/* The pair entry of an item, with its label made once. */
static struct hist_entry *
pair_of(struct history *h, const struct hist_item *it)
{
	char			key[48];
	struct hist_entry	*p;
	bool			created;

	snprintf(key, sizeof(key), "%" PRIu64 ",%" PRIu64, it->thread->id, it->stack->id);
	if ((p = hist_dict_get(&h->pairs, key, h->now, &created)) == NULL)
		return NULL;
	if (created && (p->parts = malloc(2 * sizeof(*p->parts))) != NULL) {
		p->parts[0] = it->thread;
		p->parts[1] = it->stack;
		p->nparts = 2;
		it->thread->refs++;
		it->stack->refs++;
	}
	if (p->label == NULL && p->nparts == 2)
		p->label = label_of(h, it->thread, it->stack);
	return p->label ? p : NULL;
}

static int
by_inst(const void *x, const void *y)
{
	const struct history_flame	*a = x, *b = y;

	return (a->inst > b->inst) - (a->inst < b->inst);
}

size_t
history_flame(struct history *h, const struct history_flame **v)
{
	size_t			i;
	struct hist_entry	*p;

	*v = h->flame;
	if (h->flame_serial == h->last_serial)
		return h->nflame;
	h->flame_serial = h->last_serial;
	h->nflame = 0;
	if (array_reserve(&h->flame, &h->flamecap, h->nlast) < 0)
		return 0;
	for (i = 0; i < h->nlast; i++) {
		if ((p = pair_of(h, &h->last[i])) == NULL)
			continue;	/* out of memory: this one is missing */
		h->flame[h->nflame++] = (struct history_flame){
			(int)(p->id & INT_MAX), p->label, h->last[i].count };
	}
	qsort(h->flame, h->nflame, sizeof(*h->flame), by_inst);
	*v = h->flame;
	return h->nflame;
}
