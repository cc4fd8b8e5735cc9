/*
 * test_clock_period - the CPU clock's period (sampler_clock_period_ns)
 * leaves no cold row in a heat map.  A heat map row is the slot of a
 * sample's offset within the wall-clock second; a CPU's clock ticks every
 * period from some phase.  Over 30 s, from several phases, every row of
 * the heat map a busy CPU draws holds at least 90% of the mean row (the
 * kernel's own period for the frequency, 10^9 / Hz, leaves one row at
 * half the others at 99 Hz and 50 slots: checked too, so the check can
 * fail), and the rate stays within 0.011% of the frequency.
 */
#include <stdint.h>
#include "unit.h"
#include "sampler/sampler.h"

#define SECONDS		30
#define MAX_SLOTS	100

/* The smallest row of SECONDS of ticks every period_ns from phase_ns,
 * over the mean row. */
static double
coldest_row(uint64_t period_ns, uint64_t phase_ns, unsigned slots)
{
	uint64_t rows[MAX_SLOTS] = { 0 }, total = 0, least = UINT64_MAX;

	for (uint64_t t = phase_ns; t < phase_ns + SECONDS * 1000000000ull; t += period_ns) {
		rows[t % 1000000000ull * slots / 1000000000ull]++;
		total++;
	}
	for (unsigned i = 0; i < slots; i++)
		if (rows[i] < least)
			least = rows[i];
	return (double)least * slots / (double)total;
}

/* The coldest row from any of seven phases across one period. */
static double
coldest_of_phases(uint64_t period_ns, unsigned slots)
{
	double worst = 1e9;

	for (int k = 0; k < 7; k++) {
		double c = coldest_row(period_ns, period_ns * (uint64_t)k / 7, slots);

		if (c < worst)
			worst = c;
	}
	return worst;
}

static void
test_no_cold_row(void)
{
	/* at least one sample per slot and second: fewer leave rows empty
	 * within any second, whatever the phase */
	static const struct { unsigned hz, slots; } cases[] = {
		{ 99, 50 }, { 99, 100 }, { 99, 20 }, { 199, 50 }, { 199, 100 },
		{ 250, 100 }, { 997, 50 }, { 1000, 100 }, { 49, 20 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t p = sampler_clock_period_ns(cases[i].hz);
		double cold = coldest_of_phases(p, cases[i].slots);

		printf("%u Hz, %u slots: period %llu ns, coldest row %.3f of the mean\n",
		       cases[i].hz, cases[i].slots, (unsigned long long)p, cold);
		CHECK(cold >= 0.80);
		if (cases[i].hz >= 99)
			CHECK(cold >= 0.90);
	}
	/* the kernel's period for 99 Hz: the cold row of issue 25 */
	CHECK(coldest_of_phases(1000000000ull / 99, 50) < 0.55);
}

static void
test_rate(void)
{
	int outside = 0;

	for (unsigned hz = 1; hz <= 1000; hz++) {
		double rate = 1e9 / (double)sampler_clock_period_ns(hz);

		if (rate > hz || rate < hz * (1 - 1.1e-4)) {
			printf("%u Hz: %.6f Hz, outside 0.011%% under it\n", hz, rate);
			outside++;
		}
	}
	CHECK_INT(outside, 0);
	CHECK_INT(sampler_clock_period_ns(99), 10101010 + 1010);
}

int
main(void)
{
	test_no_cold_row();
	test_rate();
	return unit_report("test_clock_period");
}
