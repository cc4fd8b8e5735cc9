/*
 * clock.h - the monotonic clock every timer, timeout and back-off of both
 * sides reads (the BPF side's bpf_ktime_get_ns() is the same clock), and
 * the real-time clock beside it for converting between the two.
 */
#ifndef LIB_CLOCK_H
#define LIB_CLOCK_H

#include <stdint.h>

uint64_t clock_mono_ns(void);
uint64_t clock_real_ns(void);

/* The monotonic clock in milliseconds, signed so that a deadline minus
 * now may go negative, and in seconds (timers of the event loops,
 * back-off holds). */
static inline int64_t
clock_mono_ms(void)
{
	return (int64_t)(clock_mono_ns() / 1000000u);
}

static inline double
clock_mono_s(void)
{
	return clock_mono_ns() / 1e9;
}

#endif /* LIB_CLOCK_H */
