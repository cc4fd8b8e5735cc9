/*
 * test_cfi_bad.c - damaged CFI never crashes, hangs or balloons the CFI
 * compiler: it is refused with a reason, or (where the damage is harmless)
 * gives a table of the usual shape.  Cases: the instruction vetting on
 * hand-written programs; the committed fuzz seeds (qa/fuzz/corpus/cfi,
 * whose names say ok- or bad-); damaged copies of the system's libc made
 * here (truncated, bytes flipped inside .eh_frame, .eh_frame_hdr pointing
 * out of range or elsewhere, a register number that made libdw take
 * 1.5 GB); seeded random mutations; inputs that are not x86-64 ELF; many
 * one-row FDEs, whose rows the build stops at its bound, not after.
 */
#include <dirent.h>
#include <fcntl.h>
#include <dwarf.h>
#include <stdint.h>
#include "unit.h"
#include "sym_testlib.h"
#include "cfi_testlib.h"
#include "unwind/cfi_internal.h"

#define CORPUS	"qa/fuzz/corpus/cfi"

static bool
vet(const uint8_t *p, size_t n)
{
	return cfi_check_program(p, n, DW_EH_PE_pcrel | DW_EH_PE_sdata4);
}

static void
test_vetting(void)
{
	static const uint8_t gcc[] = {	/* a GCC prologue/epilogue, as in libc */
		DW_CFA_advance_loc + 1, DW_CFA_def_cfa_offset, 16, DW_CFA_offset + 6, 2,
		DW_CFA_advance_loc + 3, DW_CFA_def_cfa_register, 6,
		DW_CFA_remember_state, DW_CFA_advance_loc + 9, DW_CFA_def_cfa, 7, 8,
		DW_CFA_restore_state, DW_CFA_advance_loc4, 0, 1, 0, 0, DW_CFA_nop,
	};
	uint8_t nest[2 * 65];

	CHECK(vet(gcc, sizeof(gcc)));
	CHECK(vet(gcc, 0));
	CHECK(vet((const uint8_t[]){ DW_CFA_undefined, 125 }, 2));
	CHECK(!vet((const uint8_t[]){ DW_CFA_undefined, 128, 1 }, 3));		/* register 128 */
	CHECK(!vet((const uint8_t[]){ DW_CFA_undefined, 0x80, 0xc2, 0xd7, 0x2f }, 5));
	CHECK(!vet((const uint8_t[]){ DW_CFA_register, 6, 200, 1 }, 4));
	CHECK(!vet((const uint8_t[]){ DW_CFA_def_cfa, 7 }, 2));		/* operand missing */
	CHECK(!vet((const uint8_t[]){ DW_CFA_offset + 6, 0x80 }, 2));		/* LEB runs off */
	CHECK(!vet((const uint8_t[]){ DW_CFA_advance_loc4, 1, 2, 3 }, 4));
	CHECK(!vet((const uint8_t[]){ DW_CFA_def_cfa_expression, 5, 0x77, 8 }, 4));
	CHECK(vet((const uint8_t[]){ DW_CFA_def_cfa_expression, 2, 0x77, 8 }, 4));
	CHECK(!vet((const uint8_t[]){ DW_CFA_set_loc, 1, 2 }, 3));
	CHECK(vet((const uint8_t[]){ DW_CFA_set_loc, 1, 2, 3, 4 }, 5));
	CHECK(!vet((const uint8_t[]){ DW_CFA_GNU_window_save }, 1));		/* not x86-64 */
	CHECK(!vet((const uint8_t[]){ 0x3f }, 1));				/* unknown */
	CHECK(!vet((const uint8_t[]){ DW_CFA_restore_state }, 1));		/* nothing saved */
	memset(nest, DW_CFA_remember_state, 64);
	memset(nest + 64, DW_CFA_restore_state, 64);
	CHECK(vet(nest, 128));
	memset(nest, DW_CFA_remember_state, 65);
	memset(nest + 65, DW_CFA_restore_state, 65);
	CHECK(!vet(nest, 130));
}

/* Outcome of building path (file and memory image alike): 1 a sane
 * table, 0 refused with a reason, -1 anything else. */
static int
outcome(const unsigned char *img, size_t len, const char *path)
{
	struct unwind_table t, tm;
	struct unwind_build_stats st;
	char err[256] = "", errm[256] = "";
	int fd = open(path, O_RDONLY);
	int r = unwind_table_build(fd, -1, &t, &st, err, sizeof(err));
	int rm = unwind_table_build_mem(img, len, &tm, NULL, errm, sizeof(errm));
	int res;

	close(fd);
	if (r != rm)
		res = -1;
	else if (r != 0)
		res = err[0] && errm[0] ? 0 : -1;
	else
		res = cfi_table_sane(&t) && t.nrows == tm.nrows && st.rows == t.nrows ? 1 : -1;
	if (r == 0)
		unwind_table_free(&t);
	if (rm == 0)
		unwind_table_free(&tm);
	return res;
}

/* Why the image is refused (static buffer), or NULL when it is not. */
static const char *
reason(const unsigned char *img, size_t len)
{
	static char err[256];
	struct unwind_table t;

	if (unwind_table_build_mem(img, len, &t, NULL, err, sizeof(err)) == 0) {
		unwind_table_free(&t);
		return NULL;
	}
	return err;
}

static void
test_corpus(void)
{
	DIR *d = opendir(CORPUS);
	struct dirent *de;
	size_t ok = 0, bad = 0;
	char path[512];

	CHECK(d != NULL);
	while (d && (de = readdir(d)) != NULL) {
		bool want_ok = strncmp(de->d_name, "ok-", 3) == 0;
		unsigned char *img;
		size_t len;
		int got;

		if (!want_ok && strncmp(de->d_name, "bad-", 4) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", CORPUS, de->d_name);
		img = slurp(path, &len);
		got = outcome(img, len, path);
		if (got != (want_ok ? 1 : 0))
			fprintf(stderr, "%s: outcome %d\n", path, got);
		CHECK_INT(got, want_ok ? 1 : 0);
		ok += want_ok;
		bad += !want_ok;
		free(img);
	}
	if (d)
		closedir(d);
	CHECK(ok >= 2 && bad >= 8);
	printf("corpus: %zu ok, %zu bad, each as expected\n", ok, bad);
}

/* A copy of good with patch applied at off, built; returns outcome. */
static int
patched(const unsigned char *good, size_t len, size_t off, const void *patch, size_t n,
	const char *name)
{
	unsigned char *b = malloc(len);
	int r;

	memcpy(b, good, len);
	memcpy(b + off, patch, n);
	spill(spath(name), b, len);
	r = outcome(b, len, spath(name));
	free(b);
	return r;
}

static void
test_libc(const unsigned char *good, size_t len, const char *path)
{
	uint64_t eh_addr, eh_off, eh_size, hdr_addr, hdr_off, hdr_size;
	const uint8_t bigreg[] = { DW_CFA_undefined, 0x80, 0xc2, 0xd7, 0x2f };
	const int32_t far = 0x7ffffff0, huge = 0x7fffffff;
	int32_t loc;
	unsigned seed = 7;
	int refused = 0, built = 0;

	CHECK(cfi_section(path, ".eh_frame", &eh_addr, &eh_off, &eh_size));
	CHECK(cfi_section(path, ".eh_frame_hdr", &hdr_addr, &hdr_off, &hdr_size));

	/* truncated anywhere: the section headers (at the end) are gone */
	size_t cuts[] = { 0, 4, 64, eh_off + 100, eh_off + eh_size / 2, len - 100 };
	for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		spill(spath("cut.so"), good, cuts[k]);
		CHECK_INT(outcome(good, cuts[k], spath("cut.so")), 0);
	}
	CHECK(reason(good, len / 2) && strstr(reason(good, len / 2), "section headers"));
	/* the first CIE's DW_CFA_def_cfa r7 8; DW_CFA_offset r16 1 becomes
	 * DW_CFA_undefined r100000000: vetted out, not interpreted */
	CHECK_INT(patched(good, len, eh_off + 17, bigreg, sizeof(bigreg), "bigreg.so"), 0);
	/* .eh_frame_hdr: first FDE pointer far out, count beyond the table,
	 * first location off by one */
	CHECK_INT(patched(good, len, hdr_off + 16, &far, 4, "hdr-far.so"), 0);
	CHECK_INT(patched(good, len, hdr_off + 8, &huge, 4, "hdr-count.so"), 0);
	memcpy(&loc, good + hdr_off + 12, 4);
	loc++;
	CHECK_INT(patched(good, len, hdr_off + 12, &loc, 4, "hdr-loc.so"), 0);
	/* .eh_frame_hdr naming another .eh_frame: libdw ignores its table and
	 * scans, and so do we: a good table */
	CHECK_INT(patched(good, len, hdr_off + 4, &far, 4, "hdr-ehptr.so"), 1);
	/* bytes flipped inside .eh_frame, 40 seeds */
	for (int i = 0; i < 40; i++) {
		unsigned char *b = malloc(len);
		int r;

		memcpy(b, good, len);
		for (int f = 1 + rand_r(&seed) % 4; f > 0; f--)
			b[eh_off + rand_r(&seed) % eh_size] ^= 1u << (rand_r(&seed) % 8);
		spill(spath("flip.so"), b, len);
		r = outcome(b, len, spath("flip.so"));
		CHECK(r >= 0);
		refused += r == 0;
		built += r == 1;
		free(b);
	}
	printf("libc with .eh_frame bits flipped: %d refused, %d built (sane), no crash\n",
	       refused, built);
}

/* Seeded mutations of the good seed: bytes anywhere, and truncation. */
static void
test_mutations(void)
{
	size_t len, refused = 0, built = 0;
	unsigned char *good = slurp(CORPUS "/ok-program.elf", &len), *b = malloc(len);
	unsigned seed = 12345;

	for (int iter = 0; iter < 400; iter++) {
		size_t n = rand_r(&seed) % 4 == 0 ? rand_r(&seed) % len : len;
		int r;

		memcpy(b, good, len);
		for (int f = 1 + rand_r(&seed) % 6; f > 0; f--)
			b[rand_r(&seed) % len] = (unsigned char)rand_r(&seed);
		spill(spath("mut.elf"), b, n);
		r = outcome(b, n, spath("mut.elf"));
		CHECK(r >= 0);
		refused += r == 0;
		built += r == 1;
	}
	printf("seed mutations: %zu refused, %zu built (sane), no crash\n", refused, built);
	free(b);
	free(good);
}

static void
test_not_elf(const unsigned char *good, size_t len)
{
	static const char text[] = "#!/bin/sh\necho not ELF\n";
	const uint16_t aarch64 = 183;

	write_file(spath("text"), text);
	CHECK_INT(outcome((const unsigned char *)text, strlen(text), spath("text")), 0);
	write_file(spath("empty"), "");
	CHECK_INT(outcome(good, 0, spath("empty")), 0);
	CHECK_INT(patched(good, len, 18, &aarch64, 2, "arm.so"), 0);	/* e_machine */
}

/* A library of n one-byte functions, each its own FDE, with gaps between:
 * rows grow by two per FDE (its rule, then none), as in a hostile file. */
static const char *
many_fdes(int n)
{
	FILE *f = fopen(spath("many.s"), "w");

	CHECK(f != NULL);
	for (int i = 0; f && i < n; i++)
		fprintf(f, ".text\n.p2align 4\n.globl f%d\nf%d:\n.cfi_startproc\nret\n.cfi_endproc\n",
			i, i);
	if (f)
		fclose(f);
	must_run("cc -shared -nostdlib -o %s %s", spath("many.so"), spath("many.s"));
	return spath("many.so");
}

static void
test_rows_bound(void)
{
	const char *lib = many_fdes(4000);
	struct unwind_build_stats st;
	struct unwind_table t = { 0 };
	char err[160] = "";
	int fd = open(lib, O_RDONLY);

	CHECK(fd >= 0);
	CHECK_INT(cfi_build_rows_max(fd, SIZE_MAX, &t, &st, err, sizeof(err)), 0);
	CHECK(t.nrows > 7000);			/* the whole table, unbounded */
	CHECK_INT(st.fdes, 4000);
	unwind_table_free(&t);
	CHECK_INT(cfi_build_rows_max(fd, 1000, &t, &st, err, sizeof(err)), -1);
	CHECK(strstr(err, "1000 rows or more") != NULL);
	CHECK(st.fdes <= 500);			/* stopped there, not after the build */
	CHECK(st.source_rows <= 501);
	CHECK(t.rows == NULL);
	printf("rows bound: %s after %zu of 4000 FDEs\n", err, st.fdes);
	close(fd);
}

int
main(void)
{
	char path[] = "/lib/x86_64-linux-gnu/libc.so.6";
	size_t len;
	unsigned char *libc;

	elf_version(EV_CURRENT);
	test_vetting();
	test_corpus();
	libc = slurp(path, &len);
	test_libc(libc, len, path);
	test_not_elf(libc, len);
	free(libc);
	test_mutations();
	test_rows_bound();
	return unit_report("test_cfi_bad");
}
