/*
 * unwind_chain.c - a known 10-deep call chain, main -> f1 -> ... -> f10,
 * built WITHOUT frame pointers (-O2 -fomit-frame-pointer, no sibling
 * calls: qa/src/Makefile), as distributions build their packages.  Every
 * stack sampled while it runs must hold f10, f9, ..., f1, main in order.
 * f10 spins in one of these ways (argv[1]):
 *
 *   leaf     in f10 itself
 *   plt      calling libleaf.so (also without frame pointers) through the PLT
 *   syscall  reading /dev/zero: samples in the kernel
 *   signal   interrupted by a spinning SIGPROF handler (__restore_rt)
 *   dlopen   calling dl.so (argv[2]), dlopen'ed when a line comes on stdin
 *
 * f5 is written in assembly with GCC's stack realignment prologue (DRAP,
 * as in AVX code): its CFA is kept in memory below RBP.  Prints "ready"
 * when it spins.  Used by qa/unit/pmda/test_unwind.c and qa/052.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

extern unsigned lib_work(unsigned);
extern void lib_nop(void);

static const char *mode, *dlpath;
volatile unsigned sink;

static void
spin(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink = sink * 2654435761u + i;
}

__attribute__((noinline)) void
handler(int sig)
{
	spin(3000000u + sig);
}

#define F __attribute__((noinline, noclone))
unsigned f5(unsigned);

F unsigned
f10(unsigned x)
{
	char buf[65536];
	int fd = open("/dev/zero", O_RDONLY);
	unsigned (*dl_work)(unsigned) = 0;

	if (strcmp(mode, "signal") == 0) {
		struct itimerval it = { { 0, 5000 }, { 0, 5000 } };

		signal(SIGPROF, handler);
		setitimer(ITIMER_PROF, &it, 0);
	}
	printf("ready\n");
	fflush(stdout);
	if (strcmp(mode, "dlopen") == 0) {
		char line[16];
		void *h;

		if (!fgets(line, sizeof(line), stdin) || !(h = dlopen(dlpath, RTLD_NOW)))
			return 1;
		dl_work = (unsigned (*)(unsigned))dlsym(h, "dl_work");
	}
	for (;;) {
		if (mode[0] == 'l' || (mode[0] == 's' && mode[1] == 'i'))
			sink = sink * 2654435761u + x;
		else if (mode[0] == 'p') {
			sink += lib_work(sink);
			lib_nop();
			lib_nop();
		} else if (mode[0] == 's')
			sink += (unsigned)read(fd, buf, sizeof(buf));
		else if (dl_work)
			sink += dl_work(sink);
	}
}

#define HOP(n, next) \
	F unsigned f##n(unsigned x) { unsigned r = next(x + n); sink += r; return r ^ n; }
HOP(9, f10) HOP(8, f9) HOP(7, f8) HOP(6, f7) HOP(4, f5) HOP(3, f4) HOP(2, f3) HOP(1, f2)

/* f5: CFA = *(RBP - 8) (DW_CFA_def_cfa_expression breg6 -8; deref), the
 * caller's RBP at RBP + 0 (DW_CFA_expression rbp: breg6 0) */
__asm__(".text\n.globl f5\n.type f5,@function\nf5:\n.cfi_startproc\n"
	"lea 8(%rsp), %r10\n.cfi_def_cfa %r10, 0\nand $-32, %rsp\npushq -8(%r10)\n"
	"push %rbp\n.cfi_escape 0x10,6,2,0x76,0\nmov %rsp, %rbp\npush %r10\n"
	".cfi_escape 0x0f,3,0x76,0x78,0x06\nsub $8, %rsp\nadd $5, %edi\ncall f6@PLT\n"
	"add $8, %rsp\npop %r10\n.cfi_def_cfa %r10, 0\npop %rbp\n.cfi_restore %rbp\n"
	"lea -8(%r10), %rsp\n.cfi_def_cfa %rsp, 8\nret\n.cfi_endproc\n.size f5, .-f5\n");

int
main(int argc, char **argv)
{
	mode = argc > 1 ? argv[1] : "leaf";
	dlpath = argc > 2 ? argv[2] : "";
	return (int)f1((unsigned)argc);
}
