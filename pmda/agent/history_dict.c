/*
 * history_dict.c - thread and stack dictionaries of the history (see
 * history_priv.h): a chained hash by key and a use-ordered list, so that
 * forgetting starts from the least recently used.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "history_priv.h"

static uint32_t
hash_key(const char *key)
{
	uint32_t	h = 2166136261u;	/* FNV-1a */

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 16777619u;
	return h;
}

int
hist_dict_init(struct hist_dict *d)
{
	memset(d, 0, sizeof(*d));
	d->nbuckets = 1024;
	d->next_id = 1;
	d->bucket = calloc(d->nbuckets, sizeof(*d->bucket));
	return d->bucket ? 0 : -ENOMEM;
}

void
hist_dict_free(struct hist_dict *d)
{
	struct hist_entry	*e, *next;

	for (e = d->newest; e != NULL; e = next) {
		next = e->older;
		free(e->parts);
		free(e->label);
		free(e);
	}
	free(d->bucket);
	memset(d, 0, sizeof(*d));
}

/* Double the buckets when chains grow; on failure keep the old ones. */
static void
grow(struct hist_dict *d)
{
	size_t			n = d->nbuckets * 2, i;
	struct hist_entry	**b = calloc(n, sizeof(*b)), *e;

	if (b == NULL)
		return;
	for (i = 0; i < d->nbuckets; i++)
		while ((e = d->bucket[i]) != NULL) {
			d->bucket[i] = e->hnext;
			e->hnext = b[e->hash % n];
			b[e->hash % n] = e;
		}
	free(d->bucket);
	d->bucket = b;
	d->nbuckets = n;
}

static void
unlink_use(struct hist_dict *d, struct hist_entry *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		d->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		d->oldest = e->newer;
}

static void
link_newest(struct hist_dict *d, struct hist_entry *e)
{
	e->newer = NULL;
	e->older = d->newest;
	if (d->newest)
		d->newest->newer = e;
	else
		d->oldest = e;
	d->newest = e;
}

struct hist_entry *
hist_dict_get(struct hist_dict *d, const char *key, time_t now, bool *created)
{
	uint32_t		h = hash_key(key);
	struct hist_entry	*e;
	size_t			len;

	for (e = d->bucket[h % d->nbuckets]; e != NULL; e = e->hnext)
		if (e->hash == h && strcmp(e->key, key) == 0)
			break;
	*created = e == NULL;
	if (e == NULL) {
		len = strlen(key) + 1;
		if ((e = calloc(1, sizeof(*e) + len)) == NULL)
			return NULL;
		memcpy(e->key, key, len);
		e->hash = h;
		e->id = d->next_id++;
		e->hnext = d->bucket[h % d->nbuckets];
		d->bucket[h % d->nbuckets] = e;
		if (++d->n > d->nbuckets)
			grow(d);
	} else
		unlink_use(d, e);
	link_newest(d, e);
	e->used = now;
	return e;
}

static void
remove_entry(struct hist_dict *d, struct hist_entry *e)
{
	struct hist_entry	**pp = &d->bucket[e->hash % d->nbuckets];

	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	unlink_use(d, e);
	d->n--;
	while (e->nparts > 0)
		e->parts[--e->nparts]->refs--;
	free(e->parts);
	free(e->label);
	free(e);
}

void
hist_dict_forget(struct hist_dict *d, time_t now)
{
	struct hist_entry	*e = d->oldest, *newer;

	for (; e != NULL; e = newer) {
		newer = e->newer;
		if ((e->used > now - HISTORY_FORGET_S && d->n <= HISTORY_MAX_ENTRIES) ||
		    e->used >= now)
			break;	/* the rest are newer still; this drain's stay */
		if (e->refs == 0)
			remove_entry(d, e);
	}
}

void
hist_dict_untell(struct hist_dict *d, int slot)
{
	struct hist_entry	*e;

	for (e = d->newest; e != NULL; e = e->older)
		e->told &= ~(UINT64_C(1) << slot);
}
