/*
 * dl.c - the library unwind_chain's dlopen mode loads after it started,
 * built without frame pointers.
 */
__attribute__((noinline)) static unsigned
mix(unsigned x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 2654435761u + (unsigned)i;
	return x;
}

unsigned dl_work(unsigned x);

unsigned
dl_work(unsigned x)
{
	return mix(x) ^ 5;
}
