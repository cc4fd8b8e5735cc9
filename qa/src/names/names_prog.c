/*
 * names_prog.c - the C program of the names corpus (qa/unit/pmda/
 * test_sym_names.c builds it in every shape users meet: stripped, with
 * debug files, PIE or not, static, LTO, gc-sections, exporting its
 * functions).  It holds what symbol tables make hard: static functions
 * between exported ones, an alias, an ifunc, an assembly function with no
 * size and a gap after it, a function GCC splits into a .cold part, calls
 * through the PLT, and functions aligned far apart (padding between them).
 * The test never runs it past exec: only its layout matters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long names_sink;
#ifdef NAMES_SALT
const char names_salt[] __attribute__((used)) = NAMES_SALT;
#endif

static __attribute__((noinline)) unsigned long
names_static_a(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}

static __attribute__((noinline, aligned(256))) unsigned long
names_static_b(unsigned long n)
{
	unsigned long s = 1;

	for (unsigned long i = 0; i < n; i++)
		s = s * 31 + i;
	return s;
}

__attribute__((noinline)) unsigned long
names_global(unsigned long n)
{
	return names_static_a(n) + names_static_b(n);
}

/* one function, two names */
unsigned long names_alias(unsigned long n) __attribute__((alias("names_global")));

/* an ifunc and its implementations */
static unsigned long names_impl_fast(unsigned long n) { return n * 2; }
static unsigned long names_impl_slow(unsigned long n) { return n + n; }
static unsigned long (*names_resolve(void))(unsigned long)
{
	return getenv("NAMES_SLOW") ? names_impl_slow : names_impl_fast;
}
unsigned long names_ifunc(unsigned long n) __attribute__((ifunc("names_resolve")));

/* assembly: a global function with no .size, then a gap no symbol covers */
__asm__(".text\n"
	".globl names_asm_nosize\n"
	".type names_asm_nosize, @function\n"
	"names_asm_nosize:\n"
	"	lea 1(%rdi), %rax\n"
	"	ret\n"
	".p2align 8\n"
	".globl names_asm_after\n"
	".type names_asm_after, @function\n"
	"names_asm_after:\n"
	"	mov %rdi, %rax\n"
	"	ret\n"
	".size names_asm_after, .-names_asm_after\n");
unsigned long names_asm_nosize(unsigned long);
unsigned long names_asm_after(unsigned long);

/* a rarely taken branch GCC moves to names_hot_cold.cold at -O2 */
__attribute__((noinline)) unsigned long
names_hot_cold(unsigned long n)
{
	if (__builtin_expect(n == 12345, 0)) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%lu", n);
		fprintf(stderr, "cold %s\n", buf);
		abort();
	}
	return n + 1;
}

int
main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10;

	names_sink += names_global(n) + names_alias(n) + names_ifunc(n);
	names_sink += names_asm_nosize(n) + names_asm_after(n) + names_hot_cold(n);
	names_sink += strlen(argv[0]);
	return names_sink == 42;
}
