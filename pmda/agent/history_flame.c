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
	size_t	need = *len + n + 6, cap = h->lbufcap ? h->lbufcap : 1024;
	char	*b;

	if (need > h->lbufcap) {
		while (cap < need)
			cap *= 2;
		if ((b = realloc(h->lbuf, cap)) == NULL)
			return -ENOMEM;
		h->lbuf = b;
		h->lbufcap = cap;
	}
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
	const char	*tab = strchr(t->key, '\t'), *comm;
	unsigned	pid, tid;
	size_t		len = 0;
	int		i, n;

	if (tab == NULL || sscanf(t->key, "%u %u", &pid, &tid) != 2 ||
	    (comm = strchr(strchr(t->key, ' ') + 1, ' ')) == NULL)
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
	n = snprintf(who, sizeof(who), "%s %u", tab + 1, pid);
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
	if (h->nlast > h->flamecap) {
		struct history_flame	*f = realloc(h->flame, h->nlast * sizeof(*f));

		if (f == NULL)
			return 0;
		h->flame = f;
		h->flamecap = h->nlast;
	}
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
