/*
 * util.c - error messages into caller buffers, complete writes, UTC times,
 * wall-clock time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <pcp/pmapi.h>
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

void
utc_strftime(double t, const char *fmt, char *buf, size_t len)
{
	time_t		secs;
	struct tm	tm;

	if (len == 0)
		return;
	/* years 1-9999 only: a time read back from a file (index.json) can be
	 * any number, and a double beyond time_t does not even convert */
	if (!(t > -62135596800.0 && t < 253402300800.0)) {
		snprintf(buf, len, "?");
		return;
	}
	secs = (time_t)t;
	if (gmtime_r(&secs, &tm) == NULL || strftime(buf, len, fmt, &tm) == 0)
		snprintf(buf, len, "?");
}

double
wallclock_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double
tv_secs(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

void
sleep_until(double t)
{
	double		d = t - wallclock_now();
	struct timespec	ts;

	if (d <= 0)
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

void
zone_time(double t, char *buf, size_t len)
{
	time_t		secs = (time_t)t;
	struct tm	tm;

	pmLocaltime(&secs, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S %Z", &tm);
}
