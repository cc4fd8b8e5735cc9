/*
 * test_cfi.c - the CFI compiler against binutils: every row we build for
 * the system's libc and libstdc++, for a program built here with
 * -O2 -fomit-frame-pointer (linked with and without .eh_frame_hdr, and with
 * its CFI only in a separate debug file's .debug_frame), and for our own
 * vDSO agrees with `readelf --debug-dump=frames-interp` (cfi_readelf.h).
 * Then the special rows by name: _start is END, the PLT is PLT, the
 * trampoline the kernel returns through from a signal handler
 * (__restore_rt) is SIGNAL, a function using alloca is RBP-based.
 */
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include "unit.h"
#include "sym_testlib.h"
#include "cfi_readelf.h"
#include "cfi_testlib.h"
#include "unwind/unwind_table.h"

static const char prog_src[] =
	"#include <alloca.h>\n#include <stdio.h>\n#include <string.h>\n"
	"__attribute__((noinline)) int leaf(int x) { return x * 7 + 1; }\n"
	/* enough live values that every callee-saved register, rbp too, is used */
	"__attribute__((noinline)) long pressure(long *v, int n) {\n"
	"  long a = v[0], b = v[1], c = v[2], d = v[3], e = v[4], f = v[5], g = v[6];\n"
	"  for (int i = 0; i < n; i++) { a += leaf(b); b ^= leaf(c) + a; c += leaf(d) * b;\n"
	"    d -= leaf(e) + c; e += leaf(f) ^ d; f += leaf(g) - e; g += leaf((int)a) + f; }\n"
	"  return a + b + c + d + e + f + g; }\n"
	/* alloca makes GCC keep a frame pointer even with -fomit-frame-pointer */
	"__attribute__((noinline)) int vla(int n) {\n"
	"  char *p = alloca(n + 1); memset(p, 'x', n); p[n] = 0;\n"
	"  return leaf((int)strlen(p)); }\n"
	/* never run: one row per rule a row cannot hold, then END; and a
	 * signal frame.  check_odd() counts on exactly these. */
	"__asm__(\".text\\n.globl cfi_odd\\n.type cfi_odd,@function\\ncfi_odd:\\n.cfi_startproc\\n\"\n"
	"  \"nop\\n.cfi_register %rbp, %r11\\n\"\n"			/* RBP_RULE */
	"  \"nop\\n.cfi_restore %rbp\\n.cfi_def_cfa %r10, 8\\n\"\n"	/* CFA_REGISTER */
	"  \"nop\\n.cfi_def_cfa %rsp, 8\\n.cfi_offset %rip, -16\\n\"\n"	/* RA_RULE */
	"  \"nop\\n.cfi_restore %rip\\n.cfi_offset %rbp, 0\\n\"\n"	/* RANGE */
	"  \"nop\\n.cfi_val_offset %rbp, -16\\n\"\n"			/* RBP_RULE */
	"  \"nop\\n.cfi_offset %rbp, -40000\\n\"\n"			/* RANGE */
	"  \"nop\\n.cfi_restore %rbp\\n.cfi_escape 0x0f,3,0x77,8,0x06\\n\"\n" /* CFA_EXPRESSION */
	"  \"nop\\n.cfi_def_cfa %rsp, 8\\n.cfi_undefined %rip\\n\"\n"	/* END */
	"  \"nop\\n.cfi_endproc\\n.size cfi_odd, .-cfi_odd\\n\"\n"
	/* GCC's stack realignment: CFA in r10, then loaded from below RBP */
	"  \".globl cfi_drap\\n.type cfi_drap,@function\\ncfi_drap:\\n.cfi_startproc\\n\"\n"
	"  \"nop\\n.cfi_def_cfa %r10, 0\\n\"\n"				/* CFA_REGISTER */
	"  \"nop\\n.cfi_escape 0x10,6,2,0x76,0\\n\"\n"		/* CFA_REGISTER */
	"  \"nop\\n.cfi_escape 0x0f,3,0x76,0x58,0x06\\n\"\n"	/* DRAP -40, rbp at rbp+0 */
	"  \"nop\\n.cfi_escape 0x10,6,2,0x76,0x78\\n\"\n"		/* DRAP -40, rbp at rbp-8 */
	"  \"nop\\n.cfi_offset %rbp, -16\\n\"\n"			/* RBP_RULE */
	"  \"nop\\n.cfi_endproc\\n.size cfi_drap, .-cfi_drap\\n\"\n"
	"  \".globl cfi_sig\\n.type cfi_sig,@function\\ncfi_sig:\\n\"\n"
	"  \".cfi_startproc\\n.cfi_signal_frame\\nnop\\nret\\n.cfi_endproc\\n\"\n"
	"  \".size cfi_sig, .-cfi_sig\\n\");\n"
	"int main(int argc, char **argv) {\n"
	"  long v[7] = { 1, 2, 3, 4, 5, 6, argc };\n"
	"  printf(\"%ld %d %s\\n\", pressure(v, argc * 100), vla(argc * 10), argv[0]);\n"
	"  return 0; }\n";

/* Build path's table and compare it with readelf's reading of section. */
static struct re_counts
agree(const char *path, const char *debug, struct unwind_table *t,
      struct unwind_build_stats *st)
{
	struct re_counts c = { .disagree = 1 };

	if (cfi_build_path(path, debug, t, st, true) != 0) {
		CHECK(!"table built");
		return c;
	}
	c = re_compare(debug ? debug : path, debug ? ".debug_frame" : ".eh_frame", t);
	CHECK_INT(c.disagree, 0);
	CHECK(c.rows > 0 && c.ours > 0);
	return c;
}

/* Address of symbol name in path's .symtab (nm), 0 when absent. */
static uint64_t
symbol(const char *path, const char *name, uint64_t *size)
{
	char cmd[600], line[512], n[256], type;
	uint64_t a = 0, s = 0, got = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S '%s'", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %255s", &a, &s, &type, n) == 4 &&
		    strcmp(n, name) == 0) {
			got = a;
			*size = s;
		}
	if (p)
		pclose(p);
	return got;
}

/* Whether a row over [lo, hi) restores RBP from the stack. */
static bool
has_rbp_saved(const struct unwind_table *t, uint64_t lo, uint64_t hi)
{
	for (const struct unwind_row *r = unwind_table_find(t, lo); r && r < t->rows + t->nrows &&
	     r->pc < hi; r++)
		if (r->cfa_type == SP_CFA_RSP && r->rbp_offset < 0)
			return true;
	return false;
}

static bool
has_row(const struct unwind_table *t, uint64_t lo, uint64_t hi, int type, int cfa, int rbp)
{
	for (const struct unwind_row *r = unwind_table_find(t, lo); r && r < t->rows + t->nrows &&
	     r->pc < hi; r++)
		if (r->cfa_type == type && r->cfa_offset == cfa && r->rbp_offset == rbp)
			return true;
	return false;
}

static void
test_libc(void)
{
	struct unwind_table t, t2;
	struct link_map *libc = NULL;
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	struct sigaction sa = { .sa_handler = SIG_IGN }, old;
	uint64_t restorer, a, off, size;
	struct re_counts c;

	/* the libc this process runs (not a sanitizer's interposer), so the
	 * __restore_rt it installs is one we find */
	CHECK(h != NULL && dlinfo(h, RTLD_DI_LINKMAP, &libc) == 0 && libc != NULL);
	if (libc == NULL)
		return;
	c = agree(libc->l_name, NULL, &t, NULL);
	CHECK(c.rows > 20000);
	CHECK(c.exp_plt >= 1);
	CHECK(c.exp_signal >= 1);
	CHECK(c.end_rows >= 1);
	CHECK(unwind_table_find(&t, 0) == NULL);
	CHECK(cfi_type_at(&t, UINT64_MAX) == SP_CFA_NONE);

	/* sigaction installs __restore_rt as the handler's return address */
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGUSR2, NULL, &old);
	CHECK(old.sa_restorer != NULL);
	restorer = (uint64_t)(uintptr_t)old.sa_restorer - libc->l_addr;
	CHECK_INT(cfi_type_at(&t, restorer), SP_CFA_SIGNAL);
	/* the FDE starts a byte early, for unwinders that look up ra - 1 */
	CHECK_INT(cfi_type_at(&t, restorer - 1), SP_CFA_SIGNAL);
	printf("libc: __restore_rt at %#" PRIx64 ": row type %d\n", restorer, cfi_type_at(&t, restorer));

	/* without .eh_frame_hdr the entries are scanned: the same table */
	must_run("objcopy -R .eh_frame_hdr '%s' %s", libc->l_name, spath("libc-nohdr.so"));
	CHECK(!cfi_section(spath("libc-nohdr.so"), ".eh_frame_hdr", &a, &off, &size));
	if (cfi_build_path(spath("libc-nohdr.so"), NULL, &t2, NULL, true) == 0) {
		size_t same = 0;

		for (size_t i = 0; i < t.nrows && i < t2.nrows; i++)
			same += t.rows[i].pc == t2.rows[i].pc && cfi_same_rule(&t.rows[i], &t2.rows[i]);
		CHECK_INT(t2.nrows, t.nrows);
		CHECK_INT(same, t.nrows);
		unwind_table_free(&t2);
	} else {
		CHECK(!"libc without .eh_frame_hdr built");
	}
	unwind_table_free(&t);
}

static void
test_libstdcxx(void)
{
	const char *path = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
	struct unwind_table t;
	struct re_counts c = agree(path, NULL, &t, NULL);

	CHECK(c.rows > 20000);
	unwind_table_free(&t);
}

/* The named functions of the program built here. */
static void
check_program(const char *path, const struct unwind_table *t, bool has_start)
{
	uint64_t size, a, plt = 0, off;

	cfi_section(path, ".plt", &plt, &off, &size);

	if (has_start) {
		a = symbol(path, "_start", &size);
		CHECK(a != 0);
		CHECK_INT(cfi_type_at(t, a), SP_CFA_END);
	}
	a = symbol(path, "vla", &size);
	CHECK(a != 0 && has_row(t, a, a + size, SP_CFA_RBP, 16, -16));
	a = symbol(path, "pressure", &size);
	CHECK(a != 0 && has_rbp_saved(t, a, a + size));
	a = symbol(path, "leaf", &size);
	CHECK(a != 0 && has_row(t, a, a + size, SP_CFA_RSP, 8, 0));
	if (has_start) {
		CHECK(plt != 0);
		CHECK_INT(cfi_type_at(t, plt), SP_CFA_RSP);
		CHECK_INT(cfi_offset_at(t, plt), 16);
		CHECK_INT(cfi_type_at(t, plt + 16), SP_CFA_PLT);
		CHECK_INT(cfi_offset_at(t, plt + 16), 8);
	}
}

/* cfi_odd's rows: each rule no row can hold is NONE and counted by kind;
 * cfi_drap's: the DRAP expression and RBP relative to RBP. */
static void
check_odd(const char *path, const struct unwind_table *t, const struct unwind_build_stats *st)
{
	static const int kinds[UNWIND_UNSUP_NR] = {	/* cfi_odd's, then cfi_drap's */
		[UNWIND_UNSUP_CFA_REGISTER] = 1 + 2, [UNWIND_UNSUP_CFA_EXPRESSION] = 1,
		[UNWIND_UNSUP_RBP_RULE] = 2 + 1, [UNWIND_UNSUP_RA_RULE] = 1, [UNWIND_UNSUP_RANGE] = 2,
	};
	uint64_t size, odd = symbol(path, "cfi_odd", &size), sig = symbol(path, "cfi_sig", &size);
	uint64_t drap = symbol(path, "cfi_drap", &size);
	const struct unwind_row *r;

	CHECK(odd != 0 && sig != 0 && drap != 0);
	CHECK_INT(cfi_type_at(t, drap + 1), SP_CFA_NONE);
	CHECK_INT(cfi_type_at(t, drap + 2), SP_CFA_NONE);
	r = unwind_table_find(t, drap + 3);
	CHECK(r && r->cfa_type == SP_CFA_RBP_DEREF && r->cfa_offset == -40 && r->rbp_offset == 0);
	r = unwind_table_find(t, drap + 4);
	CHECK(r && r->cfa_type == SP_CFA_RBP_DEREF && r->cfa_offset == -40 && r->rbp_offset == -8);
	CHECK_INT(cfi_type_at(t, drap + 5), SP_CFA_NONE);
	CHECK_INT(cfi_type_at(t, odd), SP_CFA_RSP);
	for (int i = 1; i <= 7; i++)
		CHECK_INT(cfi_type_at(t, odd + i), SP_CFA_NONE);
	CHECK_INT(cfi_type_at(t, odd + 8), SP_CFA_END);
	CHECK_INT(cfi_type_at(t, sig), SP_CFA_SIGNAL);
	for (int k = 0; k < UNWIND_UNSUP_NR; k++)
		CHECK_INT(st->unsupported[k], kinds[k]);
}

static void
test_program(void)
{
	const char *cc = "cc -O2 -fomit-frame-pointer -fno-inline";
	struct unwind_table t;
	struct unwind_build_stats st;
	char err[256];
	int fd;
	uint64_t a, off, size;

	write_file(spath("prog.c"), prog_src);
	must_run("%s -o %s %s", cc, spath("prog"), spath("prog.c"));
	agree(spath("prog"), NULL, &t, &st);
	check_program(spath("prog"), &t, true);
	check_odd(spath("prog"), &t, &st);
	unwind_table_free(&t);

	/* no .eh_frame_hdr: libdw and we scan the entries */
	must_run("%s -Wl,--no-eh-frame-hdr -o %s %s", cc, spath("prog-nohdr"), spath("prog.c"));
	CHECK(!cfi_section(spath("prog-nohdr"), ".eh_frame_hdr", &a, &off, &size));
	agree(spath("prog-nohdr"), NULL, &t, &st);
	check_program(spath("prog-nohdr"), &t, true);
	check_odd(spath("prog-nohdr"), &t, &st);
	unwind_table_free(&t);

	/* CFI only as .debug_frame, in a separate debug file */
	must_run("%s -g -fno-asynchronous-unwind-tables -fno-unwind-tables -o %s %s && "
		 "objcopy --only-keep-debug %s %s && "
		 "objcopy --strip-debug -R .eh_frame -R .eh_frame_hdr %s %s", cc,
		 spath("prog-dbg"), spath("prog.c"), spath("prog-dbg"), spath("prog.debug"),
		 spath("prog-dbg"), spath("prog-stripped"));
	fd = open(spath("prog-stripped"), O_RDONLY);
	CHECK_INT(unwind_table_build(fd, -1, &t, &st, err, sizeof(err)), -1);
	CHECK(strstr(err, "no .eh_frame") != NULL);
	close(fd);
	agree(spath("prog-stripped"), spath("prog.debug"), &t, &st);
	CHECK_INT(st.source, UNWIND_SRC_DEBUG_FRAME);
	check_program(spath("prog-dbg"), &t, false);
	check_odd(spath("prog-dbg"), &t, &st);
	unwind_table_free(&t);
}

/* Our own vDSO, from memory, as the PMDA reads one from /proc/PID/mem. */
static void
test_vdso(void)
{
	size_t len;
	const void *vdso = cfi_vdso(&len);
	struct unwind_table t;
	struct unwind_build_stats st;
	char err[256];

	CHECK(vdso != NULL);
	if (vdso == NULL)
		return;
	spill(spath("vdso.so"), vdso, len);
	CHECK_INT(unwind_table_build_mem(vdso, len, &t, &st, err, sizeof(err)), 0);
	CHECK(st.rows > 1);
	CHECK_INT(re_compare(spath("vdso.so"), ".eh_frame", &t).disagree, 0);
	unwind_table_free(&t);
}

int
main(void)
{
	elf_version(EV_CURRENT);
	test_libc();
	test_libstdcxx();
	test_program();
	test_vdso();
	return unit_report("test_cfi");
}
