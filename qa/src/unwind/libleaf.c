/*
 * libleaf.c - the library unwind_chain's plt mode calls, built without
 * frame pointers.  lib_work keeps a value across a call, so it has a
 * frame of its own; lib_nop is a bare return, so that the PLT stub's
 * jump is a fair share of the loop and samples land in it.
 */
__attribute__((noinline)) static unsigned
step(unsigned x)
{
	return x * 2654435761u + 1;
}

unsigned lib_work(unsigned x);
void lib_nop(void);

unsigned
lib_work(unsigned x)
{
	unsigned a = step(x);

	return a ^ step(a + x);
}

void
lib_nop(void)
{
}
