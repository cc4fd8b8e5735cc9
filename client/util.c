/*
 * util.c - error messages into caller buffers, complete writes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "util.h"

void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int
write_all(int fd, const void *data, size_t len)
{
	const char	*p = data;
	ssize_t		n;

	while (len > 0) {
		if ((n = write(fd, p, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
