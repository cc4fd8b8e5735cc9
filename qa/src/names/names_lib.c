/*
 * names_lib.c - the shared library of the names corpus: exported and
 * static functions, for frames typed "[l] " whatever table names them.
 */
static __attribute__((noinline)) unsigned long
names_lib_static(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s ^= i << (i & 7);
	return s;
}

__attribute__((noinline)) unsigned long
names_lib_entry(unsigned long n)
{
	return names_lib_static(n) + 1;
}

__attribute__((noinline)) unsigned long
names_lib_other(unsigned long n)
{
	return names_lib_entry(n) * 3;
}
