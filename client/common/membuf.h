/*
 * membuf.h - a growable byte buffer that every emitter writes into, so that
 * an output is complete in memory before a sink writes it atomically.
 */
#ifndef MEMBUF_H
#define MEMBUF_H

#include <stdarg.h>
#include <stddef.h>

struct membuf {
	char	*data;		/* always NUL-terminated when non-NULL */
	size_t	len;
	size_t	cap;
	int	failed;		/* an allocation failed: contents are incomplete */
};

void membuf_init(struct membuf *b);
void membuf_free(struct membuf *b);
void membuf_reset(struct membuf *b);
void membuf_append(struct membuf *b, const void *data, size_t len);
void membuf_puts(struct membuf *b, const char *s);
void membuf_printf(struct membuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* MEMBUF_H */
