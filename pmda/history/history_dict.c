/*
 * history_dict.c - thread and stack dictionaries of the history (see
 * history_priv.h): lib's chained hash by key and a use-ordered list, so
 * that forgetting starts from the least recently used.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "history_priv.h"
#include "lib/hash.h"
#include "lib/hash_chain.h"

int
hist_dict_init(struct hist_dict *d)
{
	memset(d, 0, sizeof(*d));
	d->next_id = 1;
	return hash_chain_init(&d->index, 0);
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
	hash_chain_free(&d->index);
	memset(d, 0, sizeof(*d));
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

static struct hist_entry *
find(const struct hist_dict *d, const char *key, uint64_t h)
{
	for (struct hash_link *l = hash_chain_first(&d->index, h); l; l = hash_chain_next(l)) {
		struct hist_entry *e = hash_chain_entry(l, struct hist_entry, link);

		if (strcmp(e->key, key) == 0)
			return e;
	}
	return NULL;
}

struct hist_entry *
hist_dict_get(struct hist_dict *d, const char *key, time_t now, bool *created)
{
	size_t			len = strlen(key) + 1;
	uint64_t		h = hash_bytes(key, len - 1);
	struct hist_entry	*e = find(d, key, h);

	*created = e == NULL;
	if (e == NULL) {
		if ((e = calloc(1, sizeof(*e) + len)) == NULL)
			return NULL;
		memcpy(e->key, key, len);
		e->id = d->next_id++;
		hash_chain_add(&d->index, &e->link, h);
	} else
		unlink_use(d, e);
	link_newest(d, e);
	e->used = now;
	return e;
}

static void
remove_entry(struct hist_dict *d, struct hist_entry *e)
{
	hash_chain_remove(&d->index, &e->link);
	unlink_use(d, e);
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
		if ((e->used > now - HISTORY_FORGET_S && d->index.count <= HISTORY_MAX_ENTRIES) ||
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
