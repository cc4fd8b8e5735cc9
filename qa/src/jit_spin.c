/*
 * jit_spin - spin in code it wrote into anonymous memory, as a JIT does,
 * with a hostile /tmp/perf-PID.map (qa 032):
 *
 *   jit_spin sparse BYTES SECONDS   a map of BYTES that is a hole but for
 *                                   its first line
 *   jit_spin dense BYTES SECONDS    BYTES of valid lines, none of them for
 *                                   the code it runs (so every read misses)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* "spin: dec %rdi; jnz spin; ret" (x86-64), "subs x0,x0,#1; b.ne .-4; ret" (arm64) */
#if defined(__x86_64__)
static const unsigned char code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
#elif defined(__aarch64__)
static const unsigned char code[] = { 0x00, 0x04, 0x00, 0xf1, 0xe1, 0xff, 0xff, 0x54,
				      0xc0, 0x03, 0x5f, 0xd6 };
#endif

static void
write_map(const char *kind, long long bytes, void *jit)
{
	char		path[64];
	FILE		*f;
	long long	done = 0;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		exit(1);
	}
	if (strcmp(kind, "sparse") == 0) {
		fprintf(f, "%lx 10 jit_first\n", (unsigned long)jit + 0x100000);
		fflush(f);
		if (ftruncate(fileno(f), bytes) != 0)
			perror("ftruncate");
	} else {
		for (unsigned long a = 0x100000; done < bytes; a += 0x10)
			done += fprintf(f, "%lx 10 jit_function_%lx\n", a, a);
	}
	fclose(f);
}

int
main(int argc, char **argv)
{
	long long	bytes = argc > 2 ? atoll(argv[2]) : 1 << 20;
	time_t		end = time(NULL) + (argc > 3 ? atoi(argv[3]) : 10);
	void		*jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void		(*spin)(unsigned long);

	if (argc < 2 || jit == MAP_FAILED)
		return 2;
	memcpy(jit, code, sizeof(code));
	if (mprotect(jit, 4096, PROT_READ | PROT_EXEC) != 0)
		return 1;
	write_map(argv[1], bytes, jit);
	printf("jit code at %p\n", jit);
	fflush(stdout);
	spin = (void (*)(unsigned long))jit;
	while (time(NULL) < end) {
		spin(2000000);	/* ~1 ms: sampled, yet light on a shared host */
		usleep(20000);
	}
	return 0;
}
