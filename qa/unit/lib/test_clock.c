/*
 * test_clock.c - the clocks of lib/clock.h: the monotonic one never goes
 * back, its three units agree, it is the clock_gettime(CLOCK_MONOTONIC)
 * the BPF side's bpf_ktime_get_ns() reads, and the real-time one is the
 * wall clock.
 */
#include <time.h>
#include "unit.h"
#include "lib/clock.h"

static uint64_t
raw_ns(clockid_t clock)
{
	struct timespec	ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
test_monotonic(void)
{
	uint64_t	a, b, c, prev = clock_mono_ns();
	int		backwards = 0;

	for (int i = 0; i < 100000; i++) {
		uint64_t now = clock_mono_ns();

		backwards += now < prev;
		prev = now;
	}
	CHECK_INT(backwards, 0);
	/* the same clock as the system's: bracketed by two raw readings */
	a = raw_ns(CLOCK_MONOTONIC);
	b = clock_mono_ns();
	c = raw_ns(CLOCK_MONOTONIC);
	CHECK(a <= b && b <= c);
	/* milliseconds and seconds are the nanoseconds, truncated and scaled */
	a = clock_mono_ns();
	b = (uint64_t)clock_mono_ms();
	c = clock_mono_ns();
	CHECK(a / 1000000u <= b && b <= c / 1000000u);
	CHECK(clock_mono_ms() >= 0);
	CHECK(clock_mono_s() >= a / 1e9);
}

static void
test_realtime(void)
{
	uint64_t	a = raw_ns(CLOCK_REALTIME), b = clock_real_ns(), c = raw_ns(CLOCK_REALTIME);

	CHECK(a <= b && b <= c);
	CHECK(b / 1000000000u >= (uint64_t)time(NULL) - 1);
}

int
main(void)
{
	test_monotonic();
	test_realtime();
	return unit_report("test_clock");
}
