/*
 * test_sym_bad.c - bad input never crashes the symbolizer and never yields
 * a wrong name: truncated and corrupted ELF files (hand-made cases and a
 * seeded mutation run), a library truncated under a running process, a
 * non-ELF file mapped executable, a kernel thread, a process that exits
 * between map capture and lookup, a missing kallsyms.  Each yields a
 * fallback name and a counter.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "unit.h"
#include "symbolizer/sym_internal.h"
#include "sym_testlib.h"

static const char lib_src[] =
	"#include <stdint.h>\n"
	"__attribute__((noinline)) int victim_function(int x)\n"
	"{ volatile int s = 0; for (int i = 0; i < x; i++) s += i * 3; return s; }\n"
	"void *victim_address(void) { return (void *)(uintptr_t)victim_function; }\n";

static const char exe_src[] =
	"#include <stdio.h>\n#include <stdint.h>\n#include <unistd.h>\n"
	"void *victim_address(void);\n"
	"__attribute__((noinline)) int exe_function(int x) { return x * 11; }\n"
	"int main(void) {\n"
	"  char c;\n"
	"  printf(\"%p victim_function\\n\", victim_address());\n"
	"  printf(\"%p exe_function\\n\", (void *)(uintptr_t)exe_function);\n"
	"  fflush(stdout);\n"
	"  return (int)read(0, &c, 1) + exe_function(1);\n"
	"}\n";

/* Load path; every symbol it yields must have a readable, terminated name. */
static struct sym_elf *
load_and_walk(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct sym_elf *e;

	if (fd < 0)
		return NULL;
	e = sym_elf_load(fd, "", path);
	close(fd);
	for (size_t i = 0; e && i < e->list.n; i++)
		(void)strlen(sym_list_name(&e->list, (long)i));
	return e;
}

static void
test_handmade(const unsigned char *good, size_t len, uint64_t vaddr)
{
	unsigned char *b = malloc(len);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	struct sym_elf *e;
	const char *p = spath("bad.so");
	long i;

	/* control: the untouched file names the function */
	memcpy(b, good, len);
	spill(p, b, len);
	e = load_and_walk(p);
	CHECK(e != NULL);
	i = e ? sym_list_find(&e->list, vaddr) : -1;
	CHECK_STR(i >= 0 ? sym_list_name(&e->list, i) : "(none)", "victim_function");
	sym_elf_free(e);

	/* truncations: nothing, or nothing wrong */
	size_t cuts[] = { 0, 4, 63, 64, 200, len / 2, len - 1 };
	for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		spill(p, good, cuts[k]);
		e = load_and_walk(p);
		i = e ? sym_list_find(&e->list, vaddr) : -1;
		CHECK(i < 0 || strcmp(sym_list_name(&e->list, i), "victim_function") == 0);
		sym_elf_free(e);
	}

	/* section headers beyond the end of the file, or absurdly many */
	memcpy(b, good, len);
	eh->e_shoff = (Elf64_Off)len * 4;
	spill(p, b, len);
	e = load_and_walk(p);
	CHECK(e == NULL || sym_list_find(&e->list, vaddr) < 0);
	sym_elf_free(e);
	memcpy(b, good, len);
	eh->e_shnum = 0xfff0;
	spill(p, b, len);
	sym_elf_free(load_and_walk(p));
	memcpy(b, good, len);
	eh->e_phoff = ~(Elf64_Off)0 - 8;
	eh->e_phnum = 0xffff;
	spill(p, b, len);
	sym_elf_free(load_and_walk(p));
	memcpy(b, good, len);
	eh->e_shstrndx = 0x7fff;
	spill(p, b, len);
	sym_elf_free(load_and_walk(p));
	free(b);
}

/* Seeded random mutations of headers, section table and symbol table. */
static void
test_mutations(const unsigned char *good, size_t len)
{
	unsigned char *b = malloc(len);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)good;
	size_t shtab = eh->e_shoff, loaded = 0, refused = 0;
	const char *p = spath("mut.so");
	unsigned seed = 12345;

	for (int iter = 0; iter < 300; iter++) {
		memcpy(b, good, len);
		int flips = 1 + rand_r(&seed) % 8;
		for (int f = 0; f < flips; f++) {
			size_t at;
			switch (rand_r(&seed) % 3) {
			case 0: at = rand_r(&seed) % 64; break;			/* ELF header */
			case 1: at = shtab + rand_r(&seed) % (len - shtab); break; /* sections */
			default: at = rand_r(&seed) % len; break;
			}
			b[at] = (unsigned char)rand_r(&seed);
		}
		size_t n = (rand_r(&seed) % 4 == 0) ? rand_r(&seed) % len : len;
		spill(p, b, n);
		struct sym_elf *e = load_and_walk(p);
		if (e)
			loaded++;
		else
			refused++;
		sym_elf_free(e);
	}
	CHECK_INT(loaded + refused, 300);
	printf("mutations: %zu loaded, %zu refused, no crash\n", loaded, refused);
	free(b);
}

/* Frames of a live process whose library was truncated on disk, which
 * exits between capture and lookup, or maps a non-ELF file executable. */
static void
test_live(void)
{
	struct symbolizer *s = symbolizer_new(8 << 20);
	struct symbolizer_stats st;
	char fn[256], got[512], want[600];
	unsigned long lib_a, exe_a;

	/* exits after its maps were captured: the file is found by inode */
	char exe[512];
	snprintf(exe, sizeof(exe), "%s", spath("victim"));	/* spath's buffers get reused */
	char *argv[] = { exe, NULL };
	struct child c = child_start(argv);
	lib_a = child_addr(&c, fn, sizeof(fn));
	exe_a = child_addr(&c, fn, sizeof(fn));
	symbolizer_note_process(s, c.pid);
	child_stop(&c);
	symbolize_user(s, c.pid, exe_a + 1, got, sizeof(got));
	CHECK_STR(got, "exe_function");
	symbolizer_free(s);

	/* and once more with the binary deleted too: module name, counted */
	s = symbolizer_new(8 << 20);
	must_run("cp %s %s", spath("victim"), spath("victim2"));
	char exe2[512];
	snprintf(exe2, sizeof(exe2), "%s", spath("victim2"));
	char *argv2[] = { exe2, NULL };
	c = child_start(argv2);
	child_addr(&c, fn, sizeof(fn));
	exe_a = child_addr(&c, fn, sizeof(fn));
	symbolizer_note_process(s, c.pid);
	child_stop(&c);
	unlink(spath("victim2"));
	symbolize_user(s, c.pid, exe_a + 1, got, sizeof(got));
	snprintf(want, sizeof(want), "[%s]", spath("victim2"));
	CHECK_STR(got, want);
	symbolizer_get_stats(s, &st);
	CHECK_INT(st.proc_errors, 1);
	CHECK_INT(st.misses, 1);
	symbolizer_free(s);

	/* the library truncated on disk under a running process */
	s = symbolizer_new(8 << 20);
	c = child_start(argv);
	lib_a = child_addr(&c, fn, sizeof(fn));
	must_run("truncate -s 100 %s", spath("libvictim.so"));
	symbolize_user(s, c.pid, lib_a + 1, got, sizeof(got));
	snprintf(want, sizeof(want), "[%s]", spath("libvictim.so"));
	CHECK_STR(got, want);
	symbolizer_get_stats(s, &st);
	CHECK_INT(st.elf_errors, 1);
	child_stop(&c);
	symbolizer_free(s);
}

static void
test_not_elf_and_kthread(void)
{
	struct symbolizer *s = symbolizer_new(8 << 20);
	struct symbolizer_stats st;
	char got[512], want[600];
	int fd;
	void *m;

	write_file(spath("notelf.txt"), "this is not an ELF file, just text\n");
	fd = open(spath("notelf.txt"), O_RDONLY);
	m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	CHECK(m != MAP_FAILED);
	symbolize_user(s, getpid(), (uintptr_t)m + 3, got, sizeof(got));
	snprintf(want, sizeof(want), "[%s]", spath("notelf.txt"));
	CHECK_STR(got, want);
	symbolizer_get_stats(s, &st);
	CHECK_INT(st.elf_errors, 1);
	munmap(m, 4096);
	close(fd);

	/* a zombie: /proc/PID/stat is there, its memory is not */
	pid_t z = fork();
	if (z == 0)
		_exit(0);
	usleep(100 * 1000);
	uint64_t lost = st.lost_processes;
	symbolize_user(s, z, 0x400000, got, sizeof(got));
	CHECK_STR(got, "[unknown] 0x0000000000400000");
	symbolizer_get_stats(s, &st);
	CHECK_INT(st.lost_processes, lost + 1);
	waitpid(z, NULL, 0);

	/* kthreadd has no user memory at all */
	symbolize_user(s, 2, 0x400000, got, sizeof(got));
	CHECK_STR(got, "[unknown] 0x0000000000400000");

	/* kallsyms missing */
	symbolizer_set_kallsyms(s, spath("no-such-kallsyms"));
	symbolize_kernel(s, 0xffffffff81000000, got, sizeof(got));
	CHECK_STR(got, "[unknown] 0xffffffff81000000");
	symbolizer_get_stats(s, &st);
	CHECK(st.proc_errors >= 1);
	symbolizer_free(s);
}

int
main(void)
{
	size_t len;
	unsigned char *good;
	uint64_t vaddr = 0;
	char line[256];

	write_file(spath("lib.c"), lib_src);
	write_file(spath("exe.c"), exe_src);
	must_run("cc -O1 -g -shared -fPIC -o %s %s", spath("libvictim.so"), spath("lib.c"));
	/* -z now: the victim must not touch the library again once started,
	 * or truncating it kills the victim (SIGBUS in lazy binding) */
	must_run("cc -O1 -g -o %s %s -L%s -lvictim -Wl,-z,now -Wl,-rpath,%s", spath("victim"), spath("exe.c"),
		 scratch_dir(), scratch_dir());
	must_run("nm %s | awk '$3 == \"victim_function\" { print $1 }' > %s",
		 spath("libvictim.so"), spath("addr"));
	FILE *f = fopen(spath("addr"), "r");
	if (f && fgets(line, sizeof(line), f))
		vaddr = strtoull(line, NULL, 16) + 1;
	if (f)
		fclose(f);
	CHECK(vaddr > 1);
	good = slurp(spath("libvictim.so"), &len);
	test_handmade(good, len, vaddr);
	test_mutations(good, len);
	free(good);
	test_not_elf_and_kthread();
	test_live();
	return unit_report("test_sym_bad");
}
