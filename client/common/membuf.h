/*
 * membuf.h - a growable byte buffer that every emitter writes into.  Held
 * whole, an output is complete in memory before a sink writes it
 * atomically; drained (membuf_init_drained), it passes a chunk at a time
 * to a staged sink object, so a 70 MB profile never sits in memory whole
 * and its bytes are copied to the page cache while still in the CPU cache.
 * Emitters only append, so they cannot tell the two apart.
 */
#ifndef MEMBUF_H
#define MEMBUF_H

#include <stdarg.h>
#include <stddef.h>

struct membuf {
	char	*data;		/* always NUL-terminated when non-NULL */
	size_t	len;
	size_t	cap;
	int	failed;		/* an allocation failed, or the drain: contents
				 * are incomplete */
	/* drained: full chunks go here instead of growing the buffer;
	 * returns 0, or -1 with errno set */
	int	(*drain)(void *arg, const void *data, size_t len);
	void	*drain_arg;
	int	drain_errno;	/* the drain's failure, 0 if none */
};

void membuf_init(struct membuf *b);
/* A buffer of about chunk bytes whose contents go to drain whenever it
 * is full, and at membuf_drain.  Returns 0, or -1 (out of memory). */
int membuf_init_drained(struct membuf *b, size_t chunk,
			int (*drain)(void *arg, const void *data, size_t len), void *arg);
/* Hand what is held to the drain (a no-op for a buffer without one);
 * returns 0, or -1 when anything was lost: failed is set. */
int membuf_drain(struct membuf *b);
void membuf_free(struct membuf *b);
void membuf_reset(struct membuf *b);
void membuf_append(struct membuf *b, const void *data, size_t len);
void membuf_puts(struct membuf *b, const char *s);
void membuf_printf(struct membuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * For emitters that write millions of short pieces (the JSON node table):
 * room for at most n more bytes, to be written at the pointer returned
 * and then counted with membuf_wrote; NULL when out of memory (failed is
 * set).  One check per piece instead of one call per field.
 */
char *membuf_room_grow(struct membuf *b, size_t n);

static inline char *
membuf_room(struct membuf *b, size_t n)
{
	if (b->data != NULL && !b->failed && n < b->cap - b->len)
		return b->data + b->len;
	return membuf_room_grow(b, n);
}

static inline void
membuf_wrote(struct membuf *b, size_t n)
{
	b->len += n;
	b->data[b->len] = '\0';
}

#endif /* MEMBUF_H */
