/*
 * membuf.c - growable byte buffer.  An allocation failure is remembered in
 * b->failed rather than returned at every call, so emitters stay readable
 * and check once at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "lib/array.h"
#include "membuf.h"

void
membuf_init(struct membuf *b)
{
	memset(b, 0, sizeof(*b));
}

void
membuf_free(struct membuf *b)
{
	free(b->data);
	membuf_init(b);
}

void
membuf_reset(struct membuf *b)
{
	b->len = 0;
	b->failed = 0;
	if (b->data)
		b->data[0] = '\0';
}

int
membuf_init_drained(struct membuf *b, size_t chunk,
		    int (*drain)(void *arg, const void *data, size_t len), void *arg)
{
	membuf_init(b);
	if (array_reserve(&b->data, &b->cap, chunk) < 0)
		return -1;
	b->data[0] = '\0';
	b->drain = drain;
	b->drain_arg = arg;
	return 0;
}

/* One piece to the drain; its failure is kept, and ends the buffer. */
static int
drain_piece(struct membuf *b, const void *data, size_t len)
{
	if (b->drain(b->drain_arg, data, len) == 0)
		return 0;
	b->drain_errno = errno ? errno : EIO;
	b->failed = 1;
	return -1;
}

int
membuf_drain(struct membuf *b)
{
	if (b->drain == NULL || b->failed)
		return b->failed ? -1 : 0;
	if (b->len > 0 && drain_piece(b, b->data, b->len) < 0)
		return -1;
	b->len = 0;
	b->data[0] = '\0';
	return 0;
}

static int
membuf_reserve(struct membuf *b, size_t extra)
{
	if (b->failed)
		return -1;
	/* drained: empty the buffer before growing it; a piece bigger than
	 * the whole chunk still grows it */
	if (b->drain != NULL && extra >= b->cap - b->len && membuf_drain(b) < 0)
		return -1;
	if (extra < b->cap - b->len)
		return 0;
	if (extra > SIZE_MAX - b->len - 1 || array_reserve(&b->data, &b->cap, b->len + extra + 1) < 0) {
		b->failed = 1;
		return -1;
	}
	return 0;
}

/* membuf_room's way when the buffer must grow first. */
char *
membuf_room_grow(struct membuf *b, size_t n)
{
	return membuf_reserve(b, n) < 0 ? NULL : b->data + b->len;
}

void
membuf_append(struct membuf *b, const void *data, size_t len)
{
	/* drained: a piece of many chunks (another buffer's text) goes
	 * straight to the drain a chunk at a time, not through a buffer grown
	 * to hold it */
	if (b->drain != NULL && len >= b->cap && membuf_drain(b) == 0) {
		const char	*p = data;
		size_t		n;

		for (; len > 0; p += n, len -= n) {
			n = len < b->cap ? len : b->cap;
			if (drain_piece(b, p, n) < 0)
				return;
		}
		return;
	}
	if (membuf_reserve(b, len) < 0)
		return;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void
membuf_puts(struct membuf *b, const char *s)
{
	membuf_append(b, s, strlen(s));
}

void
membuf_printf(struct membuf *b, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || membuf_reserve(b, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}
