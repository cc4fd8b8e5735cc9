/*
 * names_difflib.h - the differential check of frame names: for addresses
 * of a file mapped in a live process, our name and frame type against
 * elfutils' (eu-addr2line -p PID -S), which reads the same symbol tables
 * and debug files by its own code.  Shared by qa/unit/pmda/test_sym_names.c
 * (a corpus we build) and bench/names (every file this host's processes map).
 *
 * Addresses are instruction boundaries (objdump -d) of the file's
 * executable segments, so padding between functions, PLT stubs and code
 * no symbol covers are sampled as often as function bodies.
 *
 * Verdicts, per address:
 *   equal    the same name (or an alias: both sides start the function at
 *            the same address), and the type the rule gives: plain in the
 *            process's main executable, "[l] " elsewhere; or both unknown
 *   unknown  elfutils names it, we say "[/path]": a name lost, not a lie
 *   wrong    we name what elfutils finds in no symbol, a different
 *            function, or the wrong type
 * elfutils' -S (symbol table) is the reference, not -f: -f prefers DWARF's
 * subprogram names (inlined scopes), which a symbol-table symbolizer does
 * not claim to give.
 */
#ifndef NAMES_DIFFLIB_H
#define NAMES_DIFFLIB_H

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "symbolizer/symbolize.h"
#include "symbolizer/sym_internal.h"

struct nd_counts {
	size_t	compared, equal, aliases, unknown, wrong;
	size_t	unnamed;		/* of equal: neither side names it */
};

/* An executable mapping of the process, as /proc/PID/maps says. */
struct nd_map {
	uint64_t	start, end, pgoff;
	dev_t		dev;
	ino_t		ino;
	char		path[512];
};

static inline size_t
nd_read_maps(pid_t pid, struct nd_map **out)
{
	char p[64], line[1024];
	struct nd_map *v = NULL;
	size_t n = 0, cap = 0;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
	if ((f = fopen(p, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off, ino;
		unsigned maj, min;
		char perms[8];
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &s, &e, perms, &off,
			   &maj, &min, &ino, &pos) < 7 || perms[2] != 'x')
			continue;
		if (n == cap)
			v = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));
		line[strcspn(line, "\n")] = '\0';
		v[n] = (struct nd_map){ s, e, off, makedev(maj, min), ino, "" };
		snprintf(v[n].path, sizeof(v[n].path), "%s", pos ? line + pos : "");
		n++;
	}
	fclose(f);
	*out = v;
	return n;
}

/* The type the rule gives an address of mapping m: plain in the main
 * executable (what /proc/PID/exe is), "[l] " in anything else. */
static inline bool
nd_is_exe(pid_t pid, const struct nd_map *m)
{
	char p[64];
	struct stat st;

	snprintf(p, sizeof(p), "/proc/%d/exe", (int)pid);
	return m->path[0] == '/' && stat(p, &st) == 0 && st.st_dev == m->dev && st.st_ino == m->ino;
}

/*
 * Up to max instruction boundaries of the executable segments of file
 * (the bytes behind mapping path in pid; file may be a copy, as for the
 * vDSO), as addresses in pid, spread evenly.  Large segments are
 * disassembled in windows.  Returns how many.
 */
static inline size_t
nd_sample(pid_t pid, const char *path, const char *file, uint64_t *ips, size_t max)
{
	struct nd_map *maps = NULL;
	size_t nmaps = nd_read_maps(pid, &maps), n = 0, total = 0;
	struct { uint64_t off, vaddr, size; } seg[16];
	int nseg = 0, fd = open(file, O_RDONLY);
	Elf *e;
	size_t np;

	elf_version(EV_CURRENT);
	if (fd < 0 || (e = elf_begin(fd, ELF_C_READ, NULL)) == NULL) {
		if (fd >= 0)
			close(fd);
		free(maps);
		return 0;
	}
	if (elf_getphdrnum(e, &np) == 0)
		for (size_t i = 0; i < np && nseg < 16; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
			    ph.p_filesz > 0) {
				seg[nseg].off = ph.p_offset;
				seg[nseg].vaddr = ph.p_vaddr;
				seg[nseg++].size = ph.p_filesz;
				total += ph.p_filesz;
			}
		}
	elf_end(e);
	close(fd);
	for (int k = 0; k < nseg && n < max; k++) {
		/* at most 4 windows of 64 KB of a segment over 1 MB */
		int windows = seg[k].size > (1u << 20) ? 4 : 1;
		uint64_t wlen = windows > 1 ? 65536 : seg[k].size;
		size_t want = (max * (seg[k].size + 1)) / (total + 1) + 1, stride, lines = 0;

		for (int w = 0; w < windows && n < max; w++) {
			uint64_t lo = seg[k].vaddr + (seg[k].size - wlen) / (windows > 1 ? windows - 1 : 1) * w;
			char cmd[1400], line[512];
			FILE *p;

			/* count first, then take every stride-th boundary */
			snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn -w --start-address=0x%" PRIx64
				 " --stop-address=0x%" PRIx64 " '%s' 2>/dev/null", lo, lo + wlen, file);
			for (int pass = 0; pass < 2; pass++) {
				size_t seen = 0;
				if ((p = popen(cmd, "r")) == NULL)
					break;
				stride = pass == 0 ? 0 : lines / (want / windows + 1) + 1;
				while (fgets(line, sizeof(line), p)) {
					char *end;
					uint64_t va = strtoull(line, &end, 16);
					if (line[0] != ' ' || end == line || *end != ':' || end[1] != '\t')
						continue;
					if (pass == 0) {
						lines++;
						continue;
					}
					if (seen++ % stride != 0 || n >= max)
						continue;
					uint64_t off = seg[k].off + (va - seg[k].vaddr);
					for (size_t m = 0; m < nmaps; m++)
						if (strcmp(maps[m].path, path) == 0 && off >= maps[m].pgoff &&
						    off - maps[m].pgoff < maps[m].end - maps[m].start) {
							ips[n++] = maps[m].start + off - maps[m].pgoff;
							break;
						}
				}
				pclose(p);
			}
		}
	}
	free(maps);
	return n;
}

/* elfutils' answer for one address: NULL when it knows no symbol. */
struct nd_theirs {
	char	*name;		/* demangled as ours are, version cut */
	uint64_t start;
};

static inline void
nd_parse_theirs(char *sym, uint64_t ip, struct nd_theirs *t)
{
	char *plus = NULL, *dm;

	t->name = NULL;
	if (sym[0] == '\0' || strcmp(sym, "??") == 0 || sym[0] == '(')
		return;		/* nothing, or "(.text)+0x..": a section, no symbol */
	t->start = ip;
	for (char *q = strstr(sym, "+0x"); q; q = strstr(q + 1, "+0x"))
		plus = q;
	if (plus && plus[3 + strspn(plus + 3, "0123456789abcdef")] == '\0') {
		t->start = ip - strtoull(plus + 3, NULL, 16);
		*plus = '\0';
	}
	if (sym[0] && strchr(sym + 1, '@'))
		*strchr(sym + 1, '@') = '\0';
	/* the same demangler (libiberty's, as binutils'): what is compared
	 * here is which symbol, not how it is spelt */
	dm = sym_demangle(sym);
	t->name = dm ? dm : strdup(sym);
	frame_name_sanitize(t->name);
}

/* elfutils' names of ips[0..n) in pid, into t[]; false when it did not run. */
static inline bool
nd_run_theirs(pid_t pid, const uint64_t *ips, size_t n, struct nd_theirs *t)
{
	char in[] = "/tmp/names_in.XXXXXX", out[] = "/tmp/names_out.XXXXXX", cmd[256];
	char line[8192];
	int fi = mkstemp(in), fo = mkstemp(out);
	FILE *f = fdopen(fi, "w"), *r;
	size_t i = 0;
	bool ok;

	close(fo);
	for (size_t k = 0; k < n; k++)
		fprintf(f, "0x%" PRIx64 "\n", ips[k]);
	fclose(f);
	/* no debuginfod for elfutils: both sides see the files on this host */
	snprintf(cmd, sizeof(cmd), "env -u DEBUGINFOD_URLS eu-addr2line -p %d -a -S < %s > %s 2>/dev/null",
		 (int)pid, in, out);
	ok = system(cmd) == 0 && (r = fopen(out, "r")) != NULL;
	while (ok && fgets(line, sizeof(line), r)) {
		/* "0x%016x" address, symbol line, source line */
		if (strncmp(line, "0x", 2) != 0 || strlen(line) != 19)
			continue;
		if (i >= n || strtoull(line, NULL, 16) != ips[i] || !fgets(line, sizeof(line), r))
			break;
		line[strcspn(line, "\n")] = '\0';
		nd_parse_theirs(line, ips[i], &t[i]);
		i++;
	}
	if (ok)
		fclose(r);
	unlink(in);
	unlink(out);
	return ok && i == n;
}

/* Our name of ip without its type prefix; *type: 'A' plain, 'L' "[l] ",
 * '?' a module or unknown frame. */
static inline const char *
nd_ours(struct symbolizer *s, pid_t pid, uint64_t ip, char *buf, size_t len, char *type)
{
	symbolize_user(s, pid, ip, buf, len);
	if (strncmp(buf, "[l] ", 4) == 0) {
		*type = 'L';
		return buf + 4;
	}
	*type = buf[0] == '[' ? '?' : 'A';
	return buf;
}

/*
 * Compare ours and elfutils' names of ips[0..n) in pid, adding to c;
 * the first few wrong ones are described on log under label.
 */
static inline bool
nd_compare(struct symbolizer *s, pid_t pid, const uint64_t *ips, size_t n,
	   struct nd_counts *c, const char *label, FILE *log)
{
	struct nd_theirs *t = calloc(n ? n : 1, sizeof(*t));
	struct nd_map *maps = NULL;
	size_t nmaps = nd_read_maps(pid, &maps), shown = 0;
	char buf[1024], at[1024], before[1024];

	if (!nd_run_theirs(pid, ips, n, t)) {
		fprintf(log, "%s: eu-addr2line did not answer\n", label);
		free(t);
		free(maps);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		char type, ta, tb;
		const char *ours = nd_ours(s, pid, ips[i], buf, sizeof(buf), &type);
		const struct nd_map *m = NULL;
		const char *why = NULL;

		for (size_t k = 0; k < nmaps && m == NULL; k++)
			if (ips[i] >= maps[k].start && ips[i] < maps[k].end)
				m = &maps[k];
		c->compared++;
		if (type == '?') {
			if (t[i].name == NULL) {
				c->equal++;
				c->unnamed++;
			} else {
				c->unknown++;
			}
		} else if (t[i].name == NULL) {
			why = "elfutils finds no symbol";
		} else if (m == NULL || type != (nd_is_exe(pid, m) ? 'A' : 'L')) {
			why = "wrong frame type";
		} else if (strcmp(ours, t[i].name) == 0) {
			c->equal++;
		} else {
			/* an alias: our symbol also starts where theirs does */
			const char *o_at = nd_ours(s, pid, t[i].start, at, sizeof(at), &ta);
			const char *o_before = nd_ours(s, pid, t[i].start - 1, before, sizeof(before), &tb);
			if (strcmp(o_at, ours) == 0 && strcmp(o_before, ours) != 0) {
				c->equal++;
				c->aliases++;
			} else {
				why = "another function";
			}
		}
		if (why) {
			c->wrong++;
			if (shown++ < 5)
				fprintf(log, "%s: WRONG 0x%" PRIx64 " (%s+0x%" PRIx64 "): ours \"%s\", "
					"elfutils \"%s\": %s\n", label, ips[i], m ? m->path : "?",
					m ? ips[i] - m->start + m->pgoff : 0, buf,
					t[i].name ? t[i].name : "??", why);
		}
		free(t[i].name);
	}
	free(t);
	free(maps);
	return true;
}

static inline void
nd_print(FILE *f, const char *label, const struct nd_counts *c)
{
	fprintf(f, "%s: compared %zu, equal %zu (aliases %zu, neither named %zu), "
		"ours-unknown %zu, wrong %zu\n", label, c->compared, c->equal, c->aliases,
		c->unnamed, c->unknown, c->wrong);
}

static inline void
nd_add(struct nd_counts *to, const struct nd_counts *c)
{
	to->compared += c->compared;
	to->equal += c->equal;
	to->aliases += c->aliases;
	to->unnamed += c->unnamed;
	to->unknown += c->unknown;
	to->wrong += c->wrong;
}

#endif /* NAMES_DIFFLIB_H */
