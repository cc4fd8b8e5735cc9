/*
 * test_sym_vdso.c - [vdso] frames: our own vDSO and another process's are
 * named from the image the kernel mapped, checked against what binutils'
 * nm reads from a copy of that image.
 */
#include <stdint.h>
#include <sys/auxv.h>
#include "unit.h"
#include "symbolizer/symbolize.h"
#include "sym_testlib.h"

/* [start, end) of pid's [vdso] mapping. */
static bool
vdso_range(pid_t pid, unsigned long *lo, unsigned long *hi)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", lo, hi) == 2;
	fclose(f);
	return found;
}

/* Offset of clock_gettime's code in the vDSO image and the names nm gives
 * that address, space separated. */
static unsigned long
nm_vdso_function(char *names, size_t len)
{
	const void *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	unsigned long lo, hi, off = 0, a;
	char cmd[600], line[256], sym[128], type;
	FILE *f, *p;

	names[0] = '\0';
	if (!vdso_range(getpid(), &lo, &hi) || (uintptr_t)base != lo)
		return 0;
	f = fopen(spath("vdso.so"), "w");
	fwrite(base, 1, hi - lo, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "nm -D %s", spath("vdso.so"));
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, "%lx %c %127s", &a, &type, sym) == 3 &&
		    strstr(sym, "clock_gettime") && !strstr(sym, "clock_gettime64"))
			off = a;
	if (p)
		pclose(p);
	/* every alias at that address */
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, "%lx %c %127s", &a, &type, sym) == 3 && a == off) {
			char *at = strchr(sym, '@');
			if (at)
				*at = '\0';
			snprintf(names + strlen(names), len - strlen(names), " [l] %s ", sym);
		}
	if (p)
		pclose(p);
	return off;
}

static void
check_vdso(struct symbolizer *s, pid_t pid, unsigned long off, const char *names)
{
	unsigned long lo, hi;
	char got[256], pad[300];

	CHECK(vdso_range(pid, &lo, &hi));
	symbolize_user(s, pid, lo + off + 4, got, sizeof(got));
	snprintf(pad, sizeof(pad), " %s ", got);
	CHECK(strstr(names, pad) != NULL);
	if (getenv("SYM_TEST_VERBOSE"))
		fprintf(stderr, "vdso: \"%s\" among%s\n", got, names);
	if (strstr(names, pad) == NULL)
		fprintf(stderr, "vdso: got \"%s\", nm says%s\n", got, names);
}

static void
test_vdso(void)
{
	struct symbolizer *s = symbolizer_new(8 << 20);
	struct symbolizer_stats st;
	char names[1024];
	unsigned long off = nm_vdso_function(names, sizeof(names));

	CHECK(off != 0);
	check_vdso(s, getpid(), off, names);
	/* The child must be running its own code: /proc/PID/exe names the
	 * new program before exec has mapped its [vdso] (1 poll in 7-13 found
	 * that window; waiting for the exe link made this test fail 1 run in
	 * 30).  cat echoing a line is past exec. */
	char *argv[] = { "cat", NULL }, line[16] = "";
	struct child c = child_start(argv);
	CHECK(write(c.in, "ready\n", 6) == 6);
	CHECK(fgets(line, sizeof(line), c.out) != NULL && strcmp(line, "ready\n") == 0);
	check_vdso(s, c.pid, off, names);	/* read through /proc/PID/mem */
	symbolizer_get_stats(s, &st);
	CHECK(st.cache_hits >= 1);		/* the same image: one table */
	child_stop(&c);
	symbolizer_free(s);
}

int
main(void)
{
	test_vdso();
	return unit_report("test_sym_vdso");
}
