/*
 * bench_sym.c - symbolization speed and memory: ours against binutils'
 * addr2line and elfutils' eu-addr2line on the same addresses, in one run.
 *
 * Addresses are real: function symbols picked by nm (not by us) at random
 * offsets inside each function, in libc, libstdc++, a big binary with a
 * full symbol table, a ~300 MB stripped binary, and the kernel (kallsyms).
 * Each file is mapped executable into this process, so our symbolizer goes
 * its whole way: /proc/self/maps, the file, its table, the name.
 *
 * usage: bench_sym N_PER_FILE ROUNDS file...
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "symbolizer/symbolize.h"

struct nm_sym {
	uint64_t	start, size;
	char		*name;		/* demangled by nm -C */
};

struct target {
	const char	*path;
	struct nm_sym	*syms;		/* nm's view, sorted by start */
	size_t		nsyms;
	uint64_t	*vaddr;		/* link-time addresses (for addr2line) */
	uint64_t	*ip;		/* where they are in this process */
	size_t		n;
	char		*base;
	size_t		size;
};

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static long
rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static int
nm_cmp(const void *a, const void *b)
{
	const struct nm_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Function symbols by nm -C (symtab if any, else dynamic), n addresses
 * picked at random offsets inside random ones. */
static void
pick(struct target *t, size_t n, unsigned *seed)
{
	char cmd[1024], line[8192], type;
	unsigned long long a, sz;
	size_t cap = 0;
	int pos;

	snprintf(cmd, sizeof(cmd), "{ nm -S --defined-only '%s' 2>/dev/null | grep -q . && "
		 "nm -C -S --defined-only '%s' || nm -C -D -S --defined-only '%s'; } 2>/dev/null",
		 t->path, t->path, t->path);
	FILE *p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		pos = 0;
		if (sscanf(line, "%llx %llx %c %n", &a, &sz, &type, &pos) != 3 || pos == 0 ||
		    !strchr("tTwWiI", type) || sz == 0 || a == 0)
			continue;
		char *name = line + pos;
		name[strcspn(name, "\n")] = '\0';
		char *at = strstr(name, "@");	/* symbol version */
		if (at)
			*at = '\0';
		if (t->nsyms == cap)
			t->syms = realloc(t->syms, (cap = cap ? cap * 2 : 4096) * sizeof(*t->syms));
		t->syms[t->nsyms++] = (struct nm_sym){ a, sz, strdup(name) };
	}
	if (p)
		pclose(p);
	qsort(t->syms, t->nsyms, sizeof(*t->syms), nm_cmp);
	t->vaddr = calloc(n, sizeof(*t->vaddr));
	t->ip = calloc(n, sizeof(*t->ip));
	for (t->n = 0; t->nsyms > 0 && t->n < n; t->n++) {
		const struct nm_sym *k = &t->syms[rand_r(seed) % t->nsyms];
		t->vaddr[t->n] = k->start + rand_r(seed) % k->size;
	}
}

/* Is name one of the symbols nm says cover vaddr? */
static bool
nm_covers(const struct target *t, uint64_t vaddr, const char *name)
{
	size_t lo = 0, hi = t->nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* aliases and enclosing symbols start at or before vaddr */
	for (size_t i = lo; i-- > 0 && lo - i < 64;)
		if (vaddr - t->syms[i].start < t->syms[i].size && strcmp(t->syms[i].name, name) == 0)
			return true;
	return false;
}

/* Map the whole file executable, as a loader would map its text. */
static int
map_file(struct target *t)
{
	int fd = open(t->path, O_RDONLY);
	struct stat st;
	Elf *e;
	size_t np;

	if (fd < 0 || fstat(fd, &st) != 0)
		return -1;
	t->size = st.st_size;
	t->base = mmap(NULL, t->size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (t->base == MAP_FAILED || e == NULL || elf_getphdrnum(e, &np) != 0)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		for (size_t k = 0; k < np; k++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, k, &ph) && ph.p_type == PT_LOAD &&
			    t->vaddr[i] >= ph.p_vaddr && t->vaddr[i] < ph.p_vaddr + ph.p_filesz)
				t->ip[i] = (uintptr_t)t->base + ph.p_offset + (t->vaddr[i] - ph.p_vaddr);
		}
	}
	elf_end(e);
	close(fd);
	return 0;
}

/* Run a peer over the addresses of t; returns seconds, max RSS in *kb, and
 * the names it printed (function lines) in names[]. */
static double
run_peer(const char *tool, const struct target *t, size_t n, long *kb, char **names)
{
	char in[] = "/tmp/bench_sym_in.XXXXXX", out[] = "/tmp/bench_sym_out.XXXXXX";
	int fi = mkstemp(in), fo = mkstemp(out);
	FILE *f = fdopen(fi, "w");
	struct rusage ru;
	double t0;
	pid_t pid;
	int status;

	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%llx\n", (unsigned long long)t->vaddr[i]);
	fclose(f);
	/* posix_spawn, not fork: a forked child's max RSS starts at ours */
	posix_spawn_file_actions_t fa;
	char *argv[] = { (char *)tool, "-f", "-C", "-e", (char *)t->path, NULL };
	extern char **environ;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fo, 1);
	t0 = now();
	if (posix_spawnp(&pid, tool, &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	/* its peak RSS: VmHWM of its own mm, polled while it runs (the rusage
	 * of a spawned child counts the parent's memory it was cloned from) */
	*kb = 0;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		char sp[64], line[256];
		long v;
		snprintf(sp, sizeof(sp), "/proc/%d/status", (int)pid);
		FILE *st = fopen(sp, "r");
		while (st && fgets(line, sizeof(line), st))
			if (sscanf(line, "VmHWM: %ld", &v) == 1 && v > *kb)
				*kb = v;
		if (st)
			fclose(st);
		usleep(500);
	}
	posix_spawn_file_actions_destroy(&fa);
	double secs = now() - t0;
	(void)ru;
	if (names) {
		FILE *r = fopen(out, "r");
		char line[8192];
		for (size_t i = 0; r && i < n && fgets(line, sizeof(line), r); i++) {
			line[strcspn(line, "\n")] = '\0';
			names[i] = strdup(line);
			if (!fgets(line, sizeof(line), r))	/* file:line */
				break;
		}
		if (r)
			fclose(r);
	}
	close(fo);
	unlink(in);
	unlink(out);
	return secs;
}

static const char *
strip_prefix(const char *name)
{
	return strncmp(name, "[l] ", 4) == 0 ? name + 4 : name;
}

static void
bench_file(struct target *t, int rounds)
{
	char buf[4096];
	double t0, cold, warm;
	long rss0 = rss_kb(), kb1, kbn, ekb1, ekbn;
	struct symbolizer *s = symbolizer_new((size_t)1 << 30);
	struct symbolizer_stats st;
	char **ours = calloc(t->n, sizeof(*ours)), **theirs = calloc(t->n, sizeof(*theirs));
	size_t agree = 0, valid = 0;
	pid_t self = getpid();	/* a syscall: keep it out of the timed loops */

	t0 = now();
	symbolize_user(s, self, t->ip[0], buf, sizeof(buf));
	cold = now() - t0;
	for (size_t i = 0; i < t->n; i++) {
		symbolize_user(s, self, t->ip[i], buf, sizeof(buf));
		ours[i] = strdup(strip_prefix(buf));
	}
	t0 = now();
	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < t->n; i++)
			symbolize_user(s, self, t->ip[i], buf, sizeof(buf));
	warm = (now() - t0) / ((double)rounds * t->n);
	symbolizer_get_stats(s, &st);
	long rss = rss_kb() - rss0;

	double a1 = run_peer("addr2line", t, 1, &kb1, NULL);
	double an = run_peer("addr2line", t, t->n, &kbn, theirs);
	double e1 = run_peer("eu-addr2line", t, 1, &ekb1, NULL);
	double en = run_peer("eu-addr2line", t, t->n, &ekbn, NULL);
	double a_warm = (an - a1) / (t->n - 1), e_warm = (en - e1) / (t->n - 1);
	for (size_t i = 0; i < t->n; i++) {
		agree += theirs[i] && strcmp(ours[i], theirs[i]) == 0;
		valid += nm_covers(t, t->vaddr[i], ours[i]);
	}

	printf("\n%s (%.0f MB, %zu addresses)\n", t->path, t->size / 1048576.0, t->n);
	printf("  ours:          cold first lookup %8.1f ms   warm %10.0f addr/s (%.2f us)   "
	       "tables %.1f MB, RSS +%.1f MB\n", cold * 1e3, 1 / warm, warm * 1e6,
	       st.cache_bytes / 1048576.0, rss / 1024.0);
	printf("  addr2line:     start+1 addr  %8.1f ms   warm %10.0f addr/s (%.2f us)   "
	       "max RSS %.1f MB   -> ours %.0fx faster warm\n", a1 * 1e3,
	       a_warm > 0 ? 1 / a_warm : 0, a_warm * 1e6, kbn / 1024.0, a_warm / warm);
	printf("  eu-addr2line:  start+1 addr  %8.1f ms   warm %10.0f addr/s (%.2f us)   "
	       "max RSS %.1f MB   -> ours %.0fx faster warm\n", e1 * 1e3,
	       e_warm > 0 ? 1 / e_warm : 0, e_warm * 1e6, ekbn / 1024.0, e_warm / warm);
	printf("  all %zu addresses incl. start: ours %.1f ms, addr2line %.1f ms (%.0fx), "
	       "eu-addr2line %.1f ms (%.0fx)\n", t->n, (cold + warm * t->n) * 1e3, an * 1e3,
	       an / (cold + warm * t->n), en * 1e3, en / (cold + warm * t->n));
	printf("  ours is a symbol nm -C lists over the address: %zu of %zu (%.1f%%); "
	       "same name as addr2line: %zu (%.1f%%, aliases and folded code differ)\n",
	       valid, t->n, 100.0 * valid / t->n, agree, 100.0 * agree / t->n);
	for (size_t i = 0, shown = 0; i < t->n && shown < 2; i++)
		if (!nm_covers(t, t->vaddr[i], ours[i])) {
			printf("    not nm's: ours \"%.80s\" addr2line \"%.80s\"\n", ours[i],
			       theirs[i] ? theirs[i] : "");
			shown++;
		}
	for (size_t i = 0; i < t->n; i++) {
		free(ours[i]);
		free(theirs[i]);
	}
	free(ours);
	free(theirs);
	symbolizer_free(s);
}

static void
bench_kernel(size_t n, int rounds, unsigned *seed)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type, buf[512];
	unsigned long long a;
	uint64_t *all = NULL, *ip;
	size_t na = 0, cap = 0, named = 0;
	double t0, cold, warm;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && (type == 't' || type == 'T') && a) {
			if (na == cap)
				all = realloc(all, (cap = cap ? cap * 2 : 65536) * sizeof(*all));
			all[na++] = a;
		}
	if (f)
		fclose(f);
	if (na == 0)
		return;
	ip = calloc(n, sizeof(*ip));
	for (size_t i = 0; i < n; i++)
		ip[i] = all[rand_r(seed) % na] + rand_r(seed) % 16;
	struct symbolizer *s = symbolizer_new((size_t)1 << 30);
	struct symbolizer_stats st;
	t0 = now();
	symbolize_kernel(s, ip[0], buf, sizeof(buf));
	cold = now() - t0;
	t0 = now();
	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < n; i++) {
			symbolize_kernel(s, ip[i], buf, sizeof(buf));
			named += r == 0 && strncmp(buf, "[k] ", 4) == 0;
		}
	warm = (now() - t0) / ((double)rounds * n);
	symbolizer_get_stats(s, &st);
	printf("\nkernel (/proc/kallsyms, %zu text symbols, %zu addresses)\n", na, n);
	printf("  ours:          cold first lookup %8.1f ms   warm %10.0f addr/s (%.2f us)   "
	       "table %.1f MB   named %zu of %zu\n", cold * 1e3, 1 / warm, warm * 1e6,
	       st.cache_bytes / 1048576.0, named, n);
	printf("  addr2line / eu-addr2line: no peer run (need a vmlinux with symbols; "
	       "eu-addr2line -k needs kernel modules installed, absent here)\n");
	free(all);
	free(ip);
	symbolizer_free(s);
}

int
main(int argc, char **argv)
{
	unsigned seed = 42;
	size_t n;
	int rounds;

	if (argc < 4) {
		fprintf(stderr, "usage: %s N_PER_FILE ROUNDS file...\n", argv[0]);
		return 2;
	}
	n = strtoul(argv[1], NULL, 10);
	rounds = atoi(argv[2]);
	for (int i = 3; i < argc; i++) {
		struct target t = { .path = argv[i] };
		pick(&t, n, &seed);
		if (t.n < 2 || map_file(&t) != 0) {
			printf("\n%s: skipped (no function symbols or cannot map)\n", t.path);
			continue;
		}
		bench_file(&t, rounds);
		munmap(t.base, t.size);
		for (size_t k = 0; k < t.nsyms; k++)
			free(t.syms[k].name);
		free(t.syms);
		free(t.vaddr);
		free(t.ip);
	}
	bench_kernel(n, rounds, &seed);
	return 0;
}
