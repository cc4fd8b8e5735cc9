/*
 * libdemo_spin.c - the shared-library half of the demo workload: a hot
 * function that shows up as "[l] demo_lib_spin" in profiles.
 */
unsigned long demo_lib_spin(unsigned long iterations);

unsigned long
demo_lib_spin(unsigned long iterations)
{
	volatile unsigned long	acc = 0;
	unsigned long		i;

	for (i = 0; i < iterations; i++)
		acc += i ^ (acc >> 3);
	return acc;
}
