/*
 * util.h - small helpers several client files need: an error message into
 * the caller's buffer, a write that completes, UTC times and wall-clock time.
 */
#ifndef UTIL_H
#define UTIL_H

#include <stddef.h>
#include <sys/time.h>

/* snprintf into err; every client call that can fail reports this way. */
void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write all of len bytes, through short writes and EINTR; 0 or -1 (errno). */
int write_all(int fd, const void *data, size_t len);

/* strftime of time t (seconds) in UTC into buf; "?" for a time outside
 * years 1-9999 (NaN included). */
void utc_strftime(double t, const char *fmt, char *buf, size_t len);

/* "2026-11-30 23:35:01 UTC": time t in the reporting zone (pmNewZone,
 * -Z/-z), for people. */
void zone_time(double t, char *buf, size_t len);

/* Wall-clock time in seconds, as PCP timestamps count it. */
double wallclock_now(void);
double tv_secs(const struct timeval *tv);
/* Sleep until wall-clock time t; returns early on a signal, so callers
 * look at their stop flag afterwards. */
void sleep_until(double t);

#endif /* UTIL_H */
