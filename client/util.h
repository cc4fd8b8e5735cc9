/*
 * util.h - two small helpers several client files need: an error message
 * into the caller's buffer, and a write that completes.
 */
#ifndef UTIL_H
#define UTIL_H

#include <stddef.h>

/* snprintf into err; every client call that can fail reports this way. */
void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write all of len bytes, through short writes and EINTR; 0 or -1 (errno). */
int write_all(int fd, const void *data, size_t len);

#endif /* UTIL_H */
