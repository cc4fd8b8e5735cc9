/*
 * history_fetch.c - what one client gets from the history: the batches it
 * has not seen, summed per (thread, stack), as text (format in history.h
 * and docs/design.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "history_priv.h"
#include "lib/array.h"

static void
text_printf(struct text *t, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	if (t->failed)
		return;
	if (t->cap == 0 && (t->p = malloc(t->cap = 4096)) == NULL) {
		t->cap = 0;
		t->failed = true;
		return;
	}
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if ((size_t)n < t->cap - t->len)
			break;
		if (array_reserve(&t->p, &t->cap, t->len + (size_t)n + 1) < 0) {
			t->failed = true;
			return;
		}
	}
	t->len += (size_t)n;
}

/* A new reader starts after the newest batch, as the event queue's do: a
 * pmlogger restarted by pmlogger_daily must not log again the drain its
 * predecessor logged last.  It gets a slot for definitions when one is
 * free (without, it is told every definition each time). */
static void
client_start(struct history *h, struct cursor *c)
{
	int	i;

	c->active = true;
	c->slot = -1;
	c->keyed = false;
	c->next_seq = h->next_seq;
	for (i = 0; i < HISTORY_SLOTS; i++)
		if (!(h->slots & (UINT64_C(1) << i))) {
			h->slots |= UINT64_C(1) << i;
			c->slot = i;
			break;
		}
}

/* Slot forgets it was told anything: its next text defines what it uses. */
static void
untell(struct history *h, int slot)
{
	hist_dict_untell(&h->threads, slot);
	hist_dict_untell(&h->frames, slot);
	hist_dict_untell(&h->stacks, slot);
}

void
history_client_end(struct history *h, int context)
{
	struct cursor	*c = cursors_get(&h->clients, context, false);

	if (c == NULL || !c->active)
		return;
	if (c->slot >= 0) {
		untell(h, c->slot);
		h->slots &= ~(UINT64_C(1) << c->slot);
	}
	c->active = false;
	hist_trim(h);
}

static int
by_ids(const void *x, const void *y)
{
	const struct hist_item	*a = x, *b = y;

	if (a->thread->id != b->thread->id)
		return a->thread->id < b->thread->id ? -1 : 1;
	return (a->stack->id > b->stack->id) - (a->stack->id < b->stack->id);
}

/* The items of c's unseen batches into h->merged, sorted and summed; the
 * first and newest batch taken in *first, *last.  Returns the number of
 * merged items. */
static ssize_t
collect(struct history *h, const struct cursor *c, const struct hist_batch **first,
	const struct hist_batch **last, unsigned *nbatches)
{
	const struct hist_batch	*b;
	size_t			n = 0, i, j;

	*first = *last = NULL;
	*nbatches = 0;
	for (b = h->head; b != NULL; b = b->next) {
		if (b->seq < c->next_seq)
			continue;
		if (*first == NULL)
			*first = b;
		if (*last != NULL && n + b->n > HISTORY_FETCH_ITEMS)
			break;	/* the rest next time */
		if (array_reserve(&h->merged, &h->mergecap, n + b->n) < 0)
			return -ENOMEM;
		if (b->n > 0)	/* an empty drain has no items array */
			memcpy(h->merged + n, b->items, b->n * sizeof(*b->items));
		n += b->n;
		*last = b;
		(*nbatches)++;
	}
	if (n == 0)
		return 0;
	qsort(h->merged, n, sizeof(*h->merged), by_ids);
	for (i = 0, j = 1; j < n; j++) {
		if (by_ids(&h->merged[i], &h->merged[j]) == 0) {
			h->merged[i].count += h->merged[j].count;
			h->merged[i].value += h->merged[j].value;
		} else
			h->merged[++i] = h->merged[j];
	}
	return (ssize_t)(i + 1);
}

/* Neither told to this client nor written in this text (a client
 * without a slot is told in every text). */
static bool
untold(const struct history *h, const struct hist_entry *e, int slot)
{
	uint64_t	bit = slot >= 0 ? UINT64_C(1) << slot : 0;

	return !(bit && (e->told & bit)) && e->written != h->serial;
}

/* "t ID KEY" / "f ID NAME" for an entry this client has not been told. */
static void
define(struct history *h, char kind, struct hist_entry *e, int slot)
{
	if (!untold(h, e, slot))
		return;
	text_printf(&h->text, "%c %" PRIu64 " %s\n", kind, e->id, e->key);
	if (slot >= 0)
		e->told |= UINT64_C(1) << slot;
	e->written = h->serial;
}

/* The frames of a stack this client has not been told, before it. */
static void
define_frames(struct history *h, const struct hist_entry *stack, int slot)
{
	unsigned	i;

	if (!untold(h, stack, slot))
		return;
	for (i = 0; i < stack->nparts; i++)
		define(h, 'f', stack->parts[i], slot);
}

/* Stacks by their frames' ids, root first: those sharing a prefix sit
 * together. */
static int
by_frames(const void *x, const void *y)
{
	const struct hist_entry	*a = *(struct hist_entry *const *)x, *b = *(struct hist_entry *const *)y;
	unsigned		i;

	for (i = 0; i < a->nparts && i < b->nparts; i++)
		if (a->parts[i]->id != b->parts[i]->id)
			return a->parts[i]->id < b->parts[i]->id ? -1 : 1;
	return (a->nparts > b->nparts) - (a->nparts < b->nparts);
}

/*
 * "s ID F,F,..." for each stack of the items this client has not been
 * told, or "s ID ^K F,..." when its first K frames are the previous
 * stack's: stacks are defined in the order of their frames, and new
 * stacks mostly share long prefixes (one interpreter's loop, one
 * program's main), so a definition costs its own frames only.  The
 * reference never leaves the text: a reader needs nothing of earlier
 * values to follow it.
 */
static void
define_stacks(struct history *h, size_t n, int slot)
{
	const struct hist_entry	*prev = NULL;
	size_t			k = 0, i;
	unsigned		same, f;

	if (array_reserve(&h->defs, &h->defcap, n) < 0) {
		h->text.failed = true;
		return;
	}
	for (i = 0; i < n; i++) {
		struct hist_entry	*s = h->merged[i].stack;

		if (untold(h, s, slot)) {
			s->written = h->serial;	/* once in this list */
			h->defs[k++] = s;
		}
	}
	if (k > 1)	/* defs is NULL before the first stack */
		qsort(h->defs, k, sizeof(*h->defs), by_frames);
	for (i = 0; i < k; i++) {
		struct hist_entry	*s = h->defs[i];

		for (same = 0; prev && same < prev->nparts && same < s->nparts &&
		     prev->parts[same] == s->parts[same]; same++)
			;
		if (same > 0 && same == s->nparts)	/* a prefix of the previous: one frame less */
			same--;
		text_printf(&h->text, "s %" PRIu64 " ", s->id);
		if (same > 1)
			text_printf(&h->text, "^%u ", same);
		else
			same = 0;
		for (f = same; f < s->nparts; f++)
			text_printf(&h->text, "%s%" PRIu64, f > same ? "," : "", s->parts[f]->id);
		text_printf(&h->text, "\n");
		if (slot >= 0)
			s->told |= UINT64_C(1) << slot;
		prev = s;
	}
}

/* What the text says of the batches it sums. */
struct span {
	const struct hist_batch *from, *to;	/* the batches summed, in order */
	unsigned	nheat;		/* of them with a heat line */
	unsigned	nbatches;
	struct timeval	last;		/* the newest one's drain */
	unsigned	hz;		/* and its sampling rate */
	uint64_t	missed;		/* batches dropped before this client saw them */
};

/* "h SEC.USEC N C0 C1 ..." for each batch of the span with a heat map;
 * a count repeated R >= 3 times is written "C*R" (a steady host's line
 * is a few runs, not 50 numbers). */
static void
write_heat(struct history *h, const struct span *sp)
{
	const struct hist_batch	*b;
	unsigned		i, k, run;

	for (b = sp->from; b != NULL; b = b == sp->to ? NULL : b->next) {
		if (b->heat == NULL)
			continue;
		for (k = b->nheat; k > 0 && b->heat[k - 1] == 0; k--)
			;
		text_printf(&h->text, "h %ld.%06ld %u", (long)b->when.tv_sec,
			    (long)b->when.tv_usec, b->nheat);
		for (i = 0; i < k; i += run) {
			for (run = 1; i + run < k && b->heat[i + run] == b->heat[i]; run++)
				;
			if (run < 3)	/* "4 4" is no longer than "4*2" */
				run = 1;
			text_printf(&h->text, " %" PRIu64, b->heat[i]);
			if (run > 1)
				text_printf(&h->text, "*%u", run);
		}
		text_printf(&h->text, "\n");
	}
}

static unsigned
digits(uint64_t v)
{
	unsigned	n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Which keyframe period the drain second t is in: periods start at the
 * multiples of keyframe_s since the epoch, so a reader of pmseries, which
 * cannot read backwards, knows where the keyframe before a time is. */
static int64_t
period_of(const struct history *h, time_t t)
{
	return (int64_t)t / (int64_t)h->keyframe_s;
}

/*
 * Whether c's next text (telling the drains of sp) is a keyframe: its
 * first, or the first whose newest drain is in a later period than the
 * last keyframe's (a client without a slot is told everything every
 * time).  A keyframe's ids are all untold first, so it defines every one
 * it uses, and later texts each id they use first.
 */
static bool
keyframe_due(struct history *h, struct cursor *c, const struct span *sp)
{
	bool	due;

	if (h->keyframe_s == 0)
		return false;
	due = c->slot < 0 || !c->keyed ||
	      (sp->to != NULL && period_of(h, sp->last.tv_sec) != period_of(h, c->keyed_at));
	if (due && c->slot >= 0)
		untell(h, c->slot);
	return due;
}

static void
write_text(struct history *h, const struct cursor *c, size_t n, const struct span *sp,
	   bool key)
{
	struct text	*t = &h->text;
	size_t		i;

	t->len = 0;
	t->failed = false;
	h->serial++;
	text_printf(t, "drains %u %ld.%06ld hz %u", sp->nbatches, (long)sp->last.tv_sec,
		    (long)sp->last.tv_usec, sp->hz);
	if (sp->missed)
		text_printf(t, " missed %" PRIu64, sp->missed);
	if (key)	/* the period: keyframes are at its multiples (period_of) */
		text_printf(t, " period %u key", h->keyframe_s);
	text_printf(t, "\n");
	for (i = 0; i < n; i++)
		define(h, 't', h->merged[i].thread, c->slot);
	for (i = 0; i < n; i++)
		define_frames(h, h->merged[i].stack, c->slot);
	define_stacks(h, n, c->slot);
	for (i = 0; i < n; i++) {
		const struct hist_item	*it = &h->merged[i];
		bool			value = it->value != h->value(it->count, sp->hz);

		if (i == 0 || it->thread != h->merged[i - 1].thread) {
			text_printf(t, "%s%" PRIu64 " %" PRIu64, i ? "\n" : "", it->thread->id,
				    it->stack->id);
		} else {
			/* ascending in a line: "+D" after the one before where shorter */
			uint64_t	d = it->stack->id - h->merged[i - 1].stack->id;

			if (digits(d) + 1 < digits(it->stack->id))
				text_printf(t, " +%" PRIu64, d);
			else
				text_printf(t, " %" PRIu64, it->stack->id);
		}
		if (it->count != 1 || value)
			text_printf(t, ":%" PRIu64, it->count);
		if (value)
			text_printf(t, ":%" PRIu64, it->value);
	}
	if (n > 0)
		text_printf(t, "\n");
	write_heat(h, sp);
	if (!t->failed && t->len > 0 && t->p[t->len - 1] == '\n')
		t->p[--t->len] = '\0';	/* lines are separated, not ended */
}

int
history_fetch(struct history *h, int context, const char **text, size_t *len)
{
	struct cursor		*c = cursors_get(&h->clients, context, true);
	const struct hist_batch	*last;
	struct span		sp = { 0 };
	uint64_t		first;
	ssize_t			n;
	bool			key;

	*text = NULL;
	*len = 0;
	if (c == NULL)
		return -ENOMEM;
	if (!c->active)
		client_start(h, c);
	first = h->head ? h->head->seq : h->next_seq;
	if (c->next_seq < first) {
		sp.missed = first - c->next_seq;	/* dropped by the bound */
		c->next_seq = first;
	}
	if ((n = collect(h, c, &sp.from, &last, &sp.nbatches)) < 0)
		return (int)n;
	if (last != NULL) {
		const struct hist_batch	*b;

		sp.to = last;
		sp.last = last->when;
		sp.hz = last->hz;
		c->next_seq = last->seq + 1;
		for (b = sp.from; b != NULL; b = b == last ? NULL : b->next)
			sp.nheat += b->heat != NULL;
	}
	if (n == 0 && sp.missed == 0 && sp.nheat == 0)
		return 0;
	key = keyframe_due(h, c, &sp);
	write_text(h, c, (size_t)n, &sp, key);
	hist_trim(h);	/* after: the text reads the batches' heat lines */
	if (h->text.failed) {
		c->keyed = false;	/* what it was told is lost: start again */
		if (c->slot >= 0)
			untell(h, c->slot);
		return -ENOMEM;
	}
	if (key) {
		c->keyed = true;
		if (sp.to != NULL)
			c->keyed_at = sp.last.tv_sec;
	}
	*text = h->text.p;
	*len = h->text.len;
	h->st.text_bytes += h->text.len;
	return 0;
}

void
history_get_stats(const struct history *h, struct history_stats *st)
{
	*st = h->st;
	st->threads = h->threads.index.count;
	st->stacks = h->stacks.index.count;
	st->queued_bytes = h->queued_bytes;
}
