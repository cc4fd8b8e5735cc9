/*
 * archive_wire.c - consumer calls across the pipe from an isolated archive
 * reader, and back into the real consumer (archive_wire.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "archive_wire.h"
#include "common/util.h"
#include "lib/array.h"

#define NO_STRING	UINT32_MAX
#define HEADER		5	/* u32 length of what follows, u8 type */

/* ---- the child's end ---- */

int
wire_writer_init(struct wire_writer *w, int fd)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->cap = WIRE_BUFSIZE;
	return (w->buf = malloc(w->cap)) ? 0 : -ENOMEM;
}

void
wire_writer_free(struct wire_writer *w)
{
	free(w->buf);
	w->buf = NULL;
}

int
wire_flush(struct wire_writer *w)
{
	if (w->len > 0 && !w->failed && write_all(w->fd, w->buf, w->len) < 0)
		w->failed = errno ? -errno : -EPIPE;
	w->len = 0;
	return w->failed;
}

/*
 * A message is sized first, then written in place after the committed
 * ones: one room check per message, fields copied with no per-field
 * bookkeeping (the pipe carries every record of the archive).
 */
static char *
reserve(struct wire_writer *w, size_t n)
{
	if (w->failed)
		return NULL;
	if (w->len + n > w->cap && wire_flush(w) < 0)
		return NULL;
	/* one message larger than the buffer */
	if (array_reserve(&w->buf, &w->cap, n) < 0)
		return NULL;
	return w->buf + w->len;
}

static char *
begin(struct wire_writer *w, enum wire_type t, size_t fields)
{
	uint32_t	n = (uint32_t)(1 + fields);
	char		*p;

	if (fields > UINT32_MAX - 1 || (p = reserve(w, 4 + (size_t)n)) == NULL)
		return NULL;
	memcpy(p, &n, 4);
	p[4] = (char)t;
	return p + HEADER;
}

static int
end(struct wire_writer *w, const char *p)
{
	if (p == NULL)
		return w->failed ? w->failed : -ENOMEM;
	w->len = (size_t)(p - w->buf);	/* committed */
	return 0;
}

static char *
put(char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

static char *put_u8(char *p, uint8_t v) { return put(p, &v, sizeof(v)); }
static char *put_u32(char *p, uint32_t v) { return put(p, &v, sizeof(v)); }
static char *put_u64(char *p, uint64_t v) { return put(p, &v, sizeof(v)); }
static char *put_f64(char *p, double v) { return put(p, &v, sizeof(v)); }

/* A string's bytes with its NUL (0: NULL); on the wire its length first,
 * so the reader uses it in place. */
static size_t
str_len(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

static char *
put_str(char *p, const char *s, size_t n)
{
	if (s == NULL)
		return put_u32(p, NO_STRING);
	p = put_u32(p, (uint32_t)n);
	return put(p, s, n);
}

static int
send_window(struct wire_writer *w, enum wire_type t, const struct window *win)
{
	size_t	hl = str_len(win->host);
	char	*p = begin(w, t, 4 + hl + 16);

	if (p != NULL) {
		p = put_str(p, win->host, hl);
		p = put_f64(p, win->start);
		p = put_f64(p, win->end);
	}
	return end(w, p);
}

static int
w_begin(void *arg, const struct window *win)
{
	return send_window(arg, WIRE_BEGIN, win);
}

static int
w_end(void *arg, const struct window *win)
{
	int	sts = send_window(arg, WIRE_END, win);

	return sts < 0 ? sts : wire_flush(arg);
}

static int
send_sample(struct wire_writer *w, enum wire_type t, const struct stack_sample *s)
{
	size_t	l[5] = { str_len(s->host), str_len(s->process), str_len(s->thread),
			 str_len(s->stack), str_len(s->event) };
	char	*p = begin(w, t, 8 + 4 + 4 + 4 + 8 + 8 + 5 * 4 + l[0] + l[1] + l[2] + l[3] + l[4]);

	if (p != NULL) {
		p = put_f64(p, s->time);
		p = put_u32(p, s->pid);
		p = put_u32(p, s->tid);
		p = put_u32(p, s->gen);
		p = put_u64(p, s->count);
		p = put_u64(p, s->value_us);
		p = put_str(p, s->host, l[0]);
		p = put_str(p, s->process, l[1]);
		p = put_str(p, s->thread, l[2]);
		p = put_str(p, s->stack, l[3]);
		p = put_str(p, s->event, l[4]);
	}
	return end(w, p);
}

static int
w_sample(void *arg, const struct stack_sample *s)
{
	return send_sample(arg, WIRE_SAMPLE, s);
}

static int
w_near(void *arg, const struct stack_sample *s)
{
	return send_sample(arg, WIRE_NEAR, s);
}

static int
w_counters(void *arg, const struct heat_counters *hc)
{
	size_t	hl = str_len(hc->host);
	char	*p = begin(arg, WIRE_COUNTERS, 4 + hl + 8 + 8 + 1 + 4 + hc->n * sizeof(uint64_t));

	if (p != NULL) {
		p = put_str(p, hc->host, hl);
		p = put_f64(p, hc->time);
		p = put_f64(p, hc->drain);
		p = put_u8(p, hc->restart);
		p = put_u32(p, hc->n);
		p = put(p, hc->values, hc->n * sizeof(uint64_t));
	}
	return end(arg, p);
}

static int
w_gap(void *arg, const struct data_gap *g)
{
	size_t	hl = str_len(g->host), wl = str_len(g->why);
	char	*p = begin(arg, WIRE_GAP, 4 + hl + 16 + 4 + wl);

	if (p != NULL) {
		p = put_str(p, g->host, hl);
		p = put_f64(p, g->start);
		p = put_f64(p, g->end);
		p = put_str(p, g->why, wl);
	}
	return end(arg, p);
}

struct source_consumer
wire_consumer(struct wire_writer *w, const struct source_consumer *wants)
{
	struct source_consumer	c = {
		.sample = w_sample, .begin = w_begin, .end = w_end, .gap = w_gap,
		.counters = wants->counters ? w_counters : NULL,
		.near = wants->near ? w_near : NULL,
		.stacks_optional = wants->stacks_optional, .heat_optional = wants->heat_optional,
		.arg = w,
	};

	return c;
}

int
wire_progress(struct wire_writer *w, const struct archive_progress *pr)
{
	char	*p = begin(w, WIRE_PROGRESS, 4 + 1 + 8);

	if (p != NULL) {
		p = put_u32(p, (uint32_t)pr->order);
		p = put_u8(p, pr->opening);
		p = put_f64(p, pr->t);
	}
	return end(w, p);
}

int
wire_done(struct wire_writer *w, int status, const char *err)
{
	size_t	el = str_len(err);
	char	*p = begin(w, WIRE_DONE, 4 + 4 + el);
	int	sts;

	if (p != NULL) {
		p = put_u32(p, (uint32_t)status);
		p = put_str(p, err, el);
	}
	if ((sts = end(w, p)) < 0)
		return sts;
	return wire_flush(w);
}

void
wire_crash_sigsafe(struct wire_writer *w, int sig, int volume)
{
	char		msg[HEADER + 8];
	uint32_t	n = 1 + 8;
	int32_t		v[2] = { sig, volume };

	if (w->len > 0 && !w->failed)
		(void)write_all(w->fd, w->buf, w->len);
	w->len = 0;
	memcpy(msg, &n, 4);
	msg[4] = WIRE_CRASH;
	memcpy(msg + HEADER, v, sizeof(v));
	(void)write_all(w->fd, msg, sizeof(msg));
}

/* ---- the parent's end ---- */

struct reader {
	const char	*p, *end;
	bool		bad;
};

static void
get(struct reader *r, void *out, size_t n)
{
	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		memset(out, 0, n);
		return;
	}
	memcpy(out, r->p, n);
	r->p += n;
}

static uint8_t get_u8(struct reader *r) { uint8_t v; get(r, &v, sizeof(v)); return v; }
static uint32_t get_u32(struct reader *r) { uint32_t v; get(r, &v, sizeof(v)); return v; }
static uint64_t get_u64(struct reader *r) { uint64_t v; get(r, &v, sizeof(v)); return v; }
static double get_f64(struct reader *r) { double v; get(r, &v, sizeof(v)); return v; }

static const char *
get_str(struct reader *r)
{
	uint32_t	n = get_u32(r);
	const char	*s = r->p;

	if (n == NO_STRING)
		return NULL;
	if (n == 0 || (size_t)(r->end - r->p) < n || s[n - 1] != '\0') {
		r->bad = true;
		return "";
	}
	r->p += n;
	return s;
}

static struct window
get_window(struct reader *r)
{
	struct window	w;

	w.host = get_str(r);
	w.start = get_f64(r);
	w.end = get_f64(r);
	return w;
}

static struct stack_sample
get_sample(struct reader *r)
{
	struct stack_sample	s = { 0 };

	s.time = get_f64(r);
	s.pid = get_u32(r);
	s.tid = get_u32(r);
	s.gen = get_u32(r);
	s.count = get_u64(r);
	s.value_us = get_u64(r);
	s.host = get_str(r);
	s.process = get_str(r);
	s.thread = get_str(r);
	s.stack = get_str(r);
	s.event = get_str(r);
	return s;
}

/* A window begun by a predecessor is not begun again; its end is widened
 * to every record of it, whichever child handed them over. */
static int
replay_window(struct reader *r, enum wire_type t, const struct source_consumer *c,
	      struct wire_window *open)
{
	struct window	w = get_window(r);
	bool		same = open->is_open && w.host && strcmp(w.host, open->host) == 0;

	if (r->bad)
		return 0;
	if (t == WIRE_BEGIN) {
		if (same)
			return 0;
		snprintf(open->host, sizeof(open->host), "%s", w.host ? w.host : "");
		open->is_open = 1;
		open->first = INFINITY;
		open->last = -INFINITY;
		return c->begin ? c->begin(c->arg, &w) : 0;
	}
	if (same && open->first < w.start)
		w.start = open->first;
	if (same && open->last > w.end)
		w.end = open->last;
	open->is_open = 0;
	return c->end(c->arg, &w);
}

static int
replay_sample(struct reader *r, enum wire_type t, const struct source_consumer *c,
	      struct wire_window *open)
{
	struct stack_sample	s = get_sample(r);

	if (r->bad)
		return 0;
	if (t == WIRE_NEAR)
		return c->near ? c->near(c->arg, &s) : 0;
	if (open->is_open) {
		open->first = fmin(open->first, s.time);
		open->last = fmax(open->last, s.time);
	}
	return c->sample(c->arg, &s);
}

static int
replay_counters(struct reader *r, const struct source_consumer *c)
{
	struct heat_counters	hc;
	uint64_t		*v;
	int			sts;

	hc.host = get_str(r);
	hc.time = get_f64(r);
	hc.drain = get_f64(r);
	hc.restart = get_u8(r) != 0;
	hc.n = get_u32(r);
	if (r->bad || hc.n > (size_t)(r->end - r->p) / sizeof(uint64_t))
		return 0;
	if ((v = malloc(hc.n * sizeof(*v) + 1)) == NULL)
		return -ENOMEM;
	get(r, v, hc.n * sizeof(*v));
	hc.values = v;
	sts = c->counters ? c->counters(c->arg, &hc) : 0;
	free(v);
	return sts;
}

static int
replay_gap(struct reader *r, const struct source_consumer *c)
{
	struct data_gap	g;

	g.host = get_str(r);
	g.start = get_f64(r);
	g.end = get_f64(r);
	g.why = get_str(r);
	return r->bad || c->gap == NULL ? 0 : c->gap(c->arg, &g);
}

static void
replay_control(struct reader *r, enum wire_type t, struct wire_outcome *out)
{
	const char	*e;

	if (t == WIRE_PROGRESS) {
		out->where.order = (int)get_u32(r);
		out->where.opening = get_u8(r) != 0;
		out->where.t = get_f64(r);
	} else if (t == WIRE_CRASH) {
		out->crash_signal = (int)get_u32(r);
		out->crash_volume = (int)get_u32(r);
	} else if (t == WIRE_DONE) {
		out->done = 1;
		out->status = (int)get_u32(r);
		e = get_str(r);
		snprintf(out->err, sizeof(out->err), "%s", e ? e : "");
	}
}

/* One message body; 0 or the consumer's error. */
static int
replay_one(struct reader *r, const struct source_consumer *c, struct wire_window *open,
	   struct wire_outcome *out)
{
	enum wire_type	t = get_u8(r);

	switch (t) {
	case WIRE_BEGIN:
	case WIRE_END:
		return replay_window(r, t, c, open);
	case WIRE_SAMPLE:
	case WIRE_NEAR:
		return replay_sample(r, t, c, open);
	case WIRE_COUNTERS:
		return replay_counters(r, c);
	case WIRE_GAP:
		return replay_gap(r, c);
	default:
		replay_control(r, t, out);
		return 0;
	}
}

/* The whole messages in b[0..n); how many bytes they took. */
static size_t
replay_buffer(const char *b, size_t n, const struct source_consumer *c,
	      struct wire_window *open, struct wire_outcome *out)
{
	size_t		used = 0;
	uint32_t	len;

	while (out->consumer_sts == 0 && n - used >= 4) {
		struct reader	r;

		memcpy(&len, b + used, 4);
		if (n - used - 4 < len)
			break;
		r = (struct reader){ b + used + 4, b + used + 4 + len, false };
		out->consumer_sts = replay_one(&r, c, open, out);
		used += 4 + len;
	}
	return used;
}

int
wire_replay(int fd, const struct source_consumer *c, struct wire_window *open,
	    struct wire_outcome *out)
{
	size_t	cap = WIRE_BUFSIZE, have = 0, used;
	char	*buf = malloc(cap);
	ssize_t	n;

	memset(out, 0, sizeof(*out));
	out->where.order = -1;
	out->where.t = NAN;
	out->crash_volume = -1;
	if (buf == NULL)
		return out->consumer_sts = -ENOMEM;
	while (out->consumer_sts == 0) {
		/* one message larger than the buffer */
		if (have == cap && array_reserve(&buf, &cap, cap + 1) < 0) {
			out->consumer_sts = -ENOMEM;
			break;
		}
		if ((n = read(fd, buf + have, cap - have)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		used = replay_buffer(buf, have, c, open, out);
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	free(buf);
	return out->consumer_sts;
}
