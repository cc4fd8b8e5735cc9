/*
 * history.c - per-client, coalesced stack history (see history.h).
 *
 * Batches (one per drain) are queued with sequence numbers, as the event
 * queue's records are; each client keeps the next number it has to see.
 * A client's first fetch starts its cursor and gets nothing, as with the
 * records.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "history.h"
#include "history_priv.h"
#include "pipeline/lifetime.h"
#include "lib/array.h"

struct history *
history_new(history_value_fn value, size_t maxmem)
{
	struct history	*h = calloc(1, sizeof(*h));

	if (h == NULL)
		return NULL;
	if (hist_dict_init(&h->threads) < 0 || hist_dict_init(&h->frames) < 0 ||
	    hist_dict_init(&h->stacks) < 0 || hist_dict_init(&h->pairs) < 0) {
		history_free(h);
		return NULL;
	}
	h->value = value;
	h->max_bytes = maxmem;
	h->next_seq = 1;
	return h;
}

static size_t
batch_bytes(const struct hist_batch *b)
{
	return sizeof(*b) + b->cap * sizeof(struct hist_item) + b->nheat * sizeof(uint64_t);
}

static void
batch_free(struct hist_batch *b)
{
	size_t	i;

	if (b == NULL)
		return;
	for (i = 0; i < b->n; i++) {
		b->items[i].thread->refs--;
		b->items[i].stack->refs--;
	}
	free(b->items);
	free(b->heat);
	free(b);
}

void
history_set_keyframe(struct history *h, unsigned s)
{
	h->keyframe_s = s;
}

void
history_free(struct history *h)
{
	if (h == NULL)
		return;
	while (h->head) {
		struct hist_batch	*b = h->head;

		h->head = b->next;
		batch_free(b);
	}
	batch_free(h->building);
	hist_flame_free(h);
	hist_dict_free(&h->pairs);	/* first: pairs hold threads and stacks */
	hist_dict_free(&h->threads);
	hist_dict_free(&h->stacks);
	hist_dict_free(&h->frames);
	free(h->skey);
	free(h->frame);
	free(h->parts);
	cursors_free(&h->clients);
	free(h->merged);
	free(h->defs);
	free(h->text.p);
	free(h);
}

void
history_begin(struct history *h, const struct timeval *when, unsigned hz, time_t now)
{
	h->now = now;
	batch_free(h->building);
	if ((h->building = calloc(1, sizeof(*h->building))) != NULL) {
		h->building->when = *when;
		h->building->hz = hz;
	}
}

int
history_heat(struct history *h, const uint64_t *delta, unsigned n)
{
	struct hist_batch	*b = h->building;

	if (b == NULL || n == 0 || b->heat != NULL)
		return 0;
	if ((b->heat = malloc(n * sizeof(*b->heat))) == NULL)
		return -ENOMEM;
	memcpy(b->heat, delta, n * sizeof(*b->heat));
	b->nheat = n;
	return 0;
}

/* Copy s into dst (size n), control characters as '?': the text format
 * splits on tabs and newlines, and names reach us from any process. */
static void
copy_clean(char *dst, size_t n, const char *s)
{
	size_t	i;

	for (i = 0; i + 1 < n && s[i]; i++)
		dst[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	dst[i] = '\0';
}

/* Frame n of a stack, the len bytes at name: its entry into h->parts,
 * its id onto h->skey (*klen bytes so far). */
static int
add_frame(struct history *h, const char *name, size_t len, size_t *klen, size_t n)
{
	struct hist_entry	*f;
	bool			created;
	char			id[24];
	int			idlen;

	if (array_reserve(&h->frame, &h->framecap, len + 1) < 0 ||
	    array_reserve(&h->parts, &h->partscap, n + 1) < 0)
		return -ENOMEM;
	memcpy(h->frame, name, len);
	h->frame[len] = '\0';
	copy_clean(h->frame, len + 1, h->frame);
	if ((f = hist_dict_get(&h->frames, h->frame, h->now, &created)) == NULL)
		return -ENOMEM;
	idlen = snprintf(id, sizeof(id), "%s%" PRIu64, n ? "," : "", f->id);
	if (array_reserve(&h->skey, &h->skeycap, *klen + (size_t)idlen + 1) < 0)
		return -ENOMEM;
	memcpy(h->skey + *klen, id, (size_t)idlen + 1);
	*klen += (size_t)idlen;
	h->parts[n] = f;
	return 0;
}

/* The stack entry of folded frames: its frames numbered, then the stack
 * by their ids; a new stack holds its frames. */
static struct hist_entry *
stack_entry(struct history *h, const char *frames)
{
	const char		*p = frames, *semi;
	size_t			klen = 0, n = 0, i;
	struct hist_entry	*s;
	bool			created;

	for (;; n++) {
		semi = strchr(p, ';');
		if (add_frame(h, p, semi ? (size_t)(semi - p) : strlen(p), &klen, n) < 0)
			return NULL;
		if (semi == NULL)
			break;
		p = semi + 1;
	}
	if ((s = hist_dict_get(&h->stacks, h->skey, h->now, &created)) == NULL || !created)
		return s;
	if ((s->parts = malloc((n + 1) * sizeof(*s->parts))) == NULL)
		return s;	/* defined without frames: "s ID" alone, never here */
	s->nparts = (unsigned)(n + 1);
	for (i = 0; i <= n; i++) {
		s->parts[i] = h->parts[i];
		s->parts[i]->refs++;
	}
	return s;
}

static int
batch_push(struct hist_batch *b, struct hist_entry *t, struct hist_entry *s,
	   uint64_t count, uint64_t value)
{
	if (array_reserve(&b->items, &b->cap, b->n + 1) < 0)
		return -ENOMEM;
	b->items[b->n++] = (struct hist_item){ t, s, count, value };
	t->refs++;
	s->refs++;
	return 0;
}

int
history_add(struct history *h, pid_t pid, unsigned gen, pid_t tid, const char *comm,
	    const char *process, const char *stack, uint64_t count, uint64_t value_us)
{
	char			c[32], p[32], who[LIFETIME_LABEL_LEN];
	struct hist_entry	*t, *s;
	bool			created;

	copy_clean(c, sizeof(c), comm);
	copy_clean(p, sizeof(p), process);
	lifetime_label(who, sizeof(who), pid, gen);
	snprintf(h->key, sizeof(h->key), "%s %d %s\t%s", who, (int)tid, c, p);
	if (h->building == NULL ||
	    (t = hist_dict_get(&h->threads, h->key, h->now, &created)) == NULL ||
	    (s = stack_entry(h, stack)) == NULL || s->parts == NULL ||
	    batch_push(h->building, t, s, count, value_us) < 0)
		goto lost;
	return 0;
lost:
	h->st.lost++;
	return -ENOMEM;
}

static void
drop_head(struct history *h)
{
	struct hist_batch	*b = h->head;

	h->head = b->next;
	if (h->head == NULL)
		h->tail = NULL;
	h->queued_bytes -= batch_bytes(b);
	batch_free(b);
}

/* Free what every client has seen, then the oldest beyond the memory bound. */
void
hist_trim(struct history *h)
{
	uint64_t	oldest = cursors_oldest(&h->clients, h->next_seq);

	while (h->head && h->head->seq < oldest)
		drop_head(h);
	while (h->head && h->queued_bytes > h->max_bytes) {
		h->st.dropped++;
		drop_head(h);
	}
}

/* The drain's items, kept for history_flame until the next drain (none of
 * their entries can be forgotten before: they are used now). */
static void
keep_last(struct history *h, const struct hist_batch *b)
{
	size_t	n = b ? b->n : 0;

	h->last_serial++;
	h->nlast = 0;
	if (array_reserve(&h->last, &h->lastcap, n) < 0)
		return;	/* the flame view shows nothing this drain */
	if (n > 0)
		memcpy(h->last, b->items, n * sizeof(*h->last));
	h->nlast = n;
}

void
history_end(struct history *h)
{
	struct hist_batch	*b = h->building;

	h->building = NULL;
	keep_last(h, b);
	if (b != NULL) {
		b->seq = h->next_seq++;
		if (h->tail)
			h->tail->next = b;
		else
			h->head = b;
		h->tail = b;
		h->queued_bytes += batch_bytes(b);
		h->st.batches++;
	}
	hist_trim(h);
	/* pairs hold threads and stacks, stacks hold frames */
	hist_dict_forget(&h->pairs, h->now);
	hist_dict_forget(&h->threads, h->now);
	hist_dict_forget(&h->stacks, h->now);
	hist_dict_forget(&h->frames, h->now);
}
