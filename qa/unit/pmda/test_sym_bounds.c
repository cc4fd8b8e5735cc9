/*
 * test_sym_bounds.c - files made to hurt the symbolizer cost it little:
 * a .symtab claiming 4 GB of a sparse file, one a symbol over the bound,
 * a header claiming 2^32 sections, an xz bomb as MiniDebugInfo.  Each is
 * refused in milliseconds, without the memory it claims, and counted in
 * the table's refused field (stackprof.stats.elf_refused).  A table right
 * at the bound still loads, and quickly (docs/design.md, "Bounds").
 */
#include <elf.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdint.h>
#include <time.h>
#include "unit.h"
#include "symbolizer/sym_internal.h"
#include "sym_testlib.h"

static double
now_ms(void)
{
	struct timespec	t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Peak RSS so far, kB. */
static long
peak_kb(void)
{
	char	line[128];
	long	kb = 0;
	FILE	*f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static Elf64_Shdr
shdr(uint32_t name, uint32_t type, uint64_t off, uint64_t size, uint32_t link, uint64_t entsize)
{
	return (Elf64_Shdr){ .sh_name = name, .sh_type = type, .sh_offset = off, .sh_size = size,
			     .sh_link = link, .sh_addralign = 8, .sh_entsize = entsize };
}

/*
 * Our own executable (so the PT_LOAD layout is real) with its section
 * headers replaced: null, .symtab of symsize bytes at the end of the
 * file (nfuncs real function symbols, the rest a hole), .strtab, .shstrtab.
 */
static const char *
make_elf(const char *name, uint64_t symsize, uint32_t nfuncs)
{
	static const char	shstr[] = "\0.symtab\0.strtab\0.shstrtab\0.gnu_debugdata";
	const char		*path = spath(name);
	size_t			len;
	unsigned char		*exe = slurp("/proc/self/exe", &len);
	uint64_t		symoff = (len + 4095) & ~4095ull, stroff = symoff + symsize;
	uint64_t		strsize = 1 + 8 * (uint64_t)nfuncs + 16, shstroff = stroff + strsize;
	uint64_t		shoff = (shstroff + sizeof(shstr) + 7) & ~7ull;
	Elf64_Shdr		sh[4] = {
		shdr(0, SHT_NULL, 0, 0, 0, 0),
		shdr(1, SHT_SYMTAB, symoff, symsize, 2, sizeof(Elf64_Sym)),
		shdr(9, SHT_STRTAB, stroff, strsize, 0, 0),
		shdr(17, SHT_STRTAB, shstroff, sizeof(shstr), 0, 0),
	};
	Elf64_Ehdr		*eh = (Elf64_Ehdr *)exe;
	int			fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	char			*names = calloc(1, strsize);
	Elf64_Sym		*syms = calloc((size_t)nfuncs + 1, sizeof(*syms));

	eh->e_shoff = shoff;
	eh->e_shnum = 4;
	eh->e_shstrndx = 3;
	CHECK(fd >= 0 && names != NULL && syms != NULL);
	CHECK(pwrite(fd, exe, len, 0) == (ssize_t)len);
	for (uint32_t i = 0; i < nfuncs; i++) {
		syms[i + 1] = (Elf64_Sym){ .st_name = 1 + 8 * i,
					   .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = 1,
					   .st_value = 0x1000 + 16 * (uint64_t)i, .st_size = 16 };
		snprintf(names + 1 + 8 * i, 8, "f%06u", i);
	}
	if (nfuncs > 0)
		CHECK(pwrite(fd, syms, sizeof(*syms) * (nfuncs + 1), symoff) ==
		      (ssize_t)(sizeof(*syms) * (nfuncs + 1)));
	CHECK(pwrite(fd, names, strsize, stroff) == (ssize_t)strsize);
	CHECK(pwrite(fd, shstr, sizeof(shstr), shstroff) == sizeof(shstr));
	CHECK(pwrite(fd, sh, sizeof(sh), shoff) == sizeof(sh));
	close(fd);
	free(names);
	free(syms);
	free(exe);
	return path;
}

/* Peak RSS back to the current RSS (proc(5), clear_refs "5"). */
static void
reset_peak(void)
{
	int	fd = open("/proc/self/clear_refs", O_WRONLY);

	CHECK(fd >= 0 && write(fd, "5", 1) == 1);
	if (fd >= 0)
		close(fd);
}

/* Load path: how long it took, how much the peak RSS grew. */
static struct sym_elf *
timed_load(const char *path, double *ms, long *grew_kb)
{
	int		fd = open(path, O_RDONLY);
	long		peak;

	reset_peak();
	peak = peak_kb();
	double		t0 = now_ms();
	struct sym_elf	*e = sym_elf_load(fd, "", path);

	*ms = now_ms() - t0;
	*grew_kb = peak_kb() - peak;
	close(fd);
	return e;
}

static void
test_symtab_bounds(void)
{
	struct sym_elf	*e;
	double		ms;
	long		kb;

	/* 4 GB claimed, a hole on disk: refused unread */
	e = timed_load(make_elf("sparse4g", (4ull << 30) / sizeof(Elf64_Sym) * sizeof(Elf64_Sym), 16), &ms, &kb);
	CHECK(e != NULL && e->refused == 1 && e->list.n == 0);
	CHECK(ms < 50);
	CHECK(kb < 4096);
	fprintf(stderr, "4 GB .symtab: refused in %.1f ms, peak RSS +%ld kB\n", ms, kb);
	sym_elf_free(e);

	/* one symbol over the bound */
	e = timed_load(make_elf("over", SYM_SECTION_MAX + sizeof(Elf64_Sym), 16), &ms, &kb);
	CHECK(e != NULL && e->refused == 1 && e->list.n == 0);
	sym_elf_free(e);

}

/* At the bound every symbol a function: all loaded (run last: peak RSS
 * only grows, and this one is the largest). */
static void
test_at_bound(void)
{
	uint32_t	at_bound = SYM_SECTION_MAX / sizeof(Elf64_Sym) - 1;	/* + the null symbol */
	struct sym_elf	*e;
	double		ms;
	long		kb;

	e = timed_load(make_elf("at", SYM_SECTION_MAX, at_bound), &ms, &kb);
	CHECK(e != NULL && e->refused == 0 && e->list.n == at_bound);
	CHECK(kb < 40 * 1024);
	fprintf(stderr, "%u symbols (at the bound): loaded in %.1f ms, peak RSS +%ld kB\n",
		at_bound, ms, kb);
	if (e != NULL && e->list.n > 0)
		CHECK_STR(sym_list_name(&e->list, sym_list_find(&e->list, 0x1000 + 16 * 1234)),
			  "f001234");
	sym_elf_free(e);
}

/* A header claiming 2^24 sections (extended numbering) of a sparse file:
 * libelf would read 1 GB of section headers to walk them. */
static void
test_section_count(void)
{
	const char	*path = make_elf("shnum", 4096, 1);
	int		fd = open(path, O_RDWR);
	Elf64_Ehdr	eh;
	Elf64_Shdr	s0;
	struct sym_elf	*e;
	double		ms;
	long		kb;

	CHECK(pread(fd, &eh, sizeof(eh), 0) == sizeof(eh));
	CHECK(pread(fd, &s0, sizeof(s0), (off_t)eh.e_shoff) == sizeof(s0));
	eh.e_shnum = 0;
	s0.sh_size = 1u << 24;
	CHECK(pwrite(fd, &eh, sizeof(eh), 0) == sizeof(eh));
	CHECK(pwrite(fd, &s0, sizeof(s0), (off_t)eh.e_shoff) == sizeof(s0));
	CHECK(ftruncate(fd, (off_t)eh.e_shoff + ((off_t)1 << 24) * (off_t)sizeof(Elf64_Shdr)) == 0);
	close(fd);
	e = timed_load(path, &ms, &kb);
	CHECK(e != NULL && e->refused == 1 && e->list.n == 0);
	CHECK(ms < 50 && kb < 4096);
	fprintf(stderr, "2^24 sections: refused in %.1f ms, peak RSS +%ld kB\n", ms, kb);
	sym_elf_free(e);
}

/* MiniDebugInfo that inflates to 256 MB of zeros (40 kB packed): the
 * decoder stops at the bound.  (Its time is printed, not checked: it
 * inflates the bound's worth first.) */
static void
test_minidebug_bomb(void)
{
	const char	*path = make_elf("bomb", 0, 0);
	size_t		zlen = 256u << 20, cap = 1u << 20, packed_len = 0;
	uint8_t		*packed = malloc(cap), *zeros = calloc(1, 1u << 20);
	lzma_stream	strm = LZMA_STREAM_INIT;
	int		fd = open(path, O_RDWR);
	Elf64_Ehdr	eh;
	Elf64_Shdr	sh[4];
	struct sym_elf	*e;
	double		ms;
	long		kb;

	CHECK(lzma_easy_encoder(&strm, 0, LZMA_CHECK_CRC64) == LZMA_OK);
	strm.next_out = packed;
	strm.avail_out = cap;
	for (size_t done = 0; done < zlen; done += 1u << 20) {
		strm.next_in = zeros;
		strm.avail_in = 1u << 20;
		while (strm.avail_in > 0)
			CHECK(lzma_code(&strm, LZMA_RUN) == LZMA_OK);
	}
	while (lzma_code(&strm, LZMA_FINISH) == LZMA_OK)
		;
	packed_len = cap - strm.avail_out;
	lzma_end(&strm);
	/* the empty .symtab becomes .gnu_debugdata: no symbols but those */
	CHECK(pread(fd, &eh, sizeof(eh), 0) == sizeof(eh));
	CHECK(pread(fd, sh, sizeof(sh), (off_t)eh.e_shoff) == sizeof(sh));
	sh[1] = shdr(27, SHT_PROGBITS, (uint64_t)lseek(fd, 0, SEEK_END), packed_len, 0, 0);
	CHECK(pwrite(fd, packed, packed_len, (off_t)sh[1].sh_offset) == (ssize_t)packed_len);
	CHECK(pwrite(fd, sh, sizeof(sh), (off_t)eh.e_shoff) == sizeof(sh));
	close(fd);
	e = timed_load(path, &ms, &kb);
	CHECK(e != NULL && e->refused == 1 && e->list.n == 0);
	CHECK(kb < 40 * 1024);
	fprintf(stderr, "xz bomb (%zu kB -> 256 MB): refused in %.1f ms, peak RSS +%ld kB\n",
		packed_len >> 10, ms, kb);
	sym_elf_free(e);
	free(packed);
	free(zeros);
}

/* The kernel's PROCMAP_QUERY and the text of /proc/PID/maps give the same
 * executable mappings (the text is what kernels before 6.11 have). */
static void
test_maps_both_ways(void)
{
	struct sym_map	*q = NULL, *t = NULL;
	size_t		nq = 0, nt = 0;
	bool		cut_q, cut_t;

	CHECK(sym_maps_read(getpid(), &q, &nq, &cut_q));
	setenv("STACKPROF_SYM_MAPS_TEXT", "1", 1);
	CHECK(sym_maps_read(getpid(), &t, &nt, &cut_t));
	unsetenv("STACKPROF_SYM_MAPS_TEXT");
	CHECK(nq > 2 && nq == nt && !cut_q && !cut_t);
	for (size_t i = 0; i < nq && i < nt; i++) {
		CHECK(q[i].start == t[i].start && q[i].end == t[i].end && q[i].pgoff == t[i].pgoff);
		CHECK(q[i].dev == t[i].dev && q[i].ino == t[i].ino && q[i].kind == t[i].kind);
		CHECK_STR(q[i].path ? q[i].path : "", t[i].path ? t[i].path : "");
	}
	for (size_t i = 0; i < nt; i++)
		free(t[i].path);
	free(t);
	/* the text is read up to its line bound, and the cut is said */
	setenv("STACKPROF_SYM_MAPS_TEXT", "1", 1);
	sym_maps_lines_max = 3;
	CHECK(sym_maps_read(getpid(), &t, &nt, &cut_t));
	sym_maps_lines_max = 65536;
	unsetenv("STACKPROF_SYM_MAPS_TEXT");
	CHECK(cut_t && nt <= 3);
	for (size_t i = 0; i < nq; i++)
		free(q[i].path);
	for (size_t i = 0; i < nt; i++)
		free(t[i].path);
	free(q);
	free(t);
}

int
main(void)
{
	test_maps_both_ways();
	test_section_count();
	test_symtab_bounds();
	test_minidebug_bomb();
	test_at_bound();
	return unit_report("test_sym_bounds");
}
