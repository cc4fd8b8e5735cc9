/*
 * sym_perfmap.c - names of JIT-compiled code from perf's map files,
 * /tmp/perf-PID.map, written by Node.js (--perf-basic-prof), the JVM
 * (perf-map-agent), LuaJIT, .NET and others.  Each line is
 * "START SIZE name" in hex; the file only grows while the process runs.
 *
 * The file lives in the process's mount namespace and is named with the
 * process's own PID there (NSpid), so we open
 * /proc/PID/root/tmp/perf-NSPID.map.  We read only what was appended since
 * the last read, at most once per drain generation, and a later line for
 * an address wins over an earlier one (JIT code gets reused).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sym_internal.h"
#include "lib/array.h"

#define ARENA_CHUNK	(64 * 1024)
/*
 * Bounds (docs/design.md, "Bounds"): the map is written by the process we
 * sample, so by anyone.  A file over PERFMAP_MAX is not read at all; at
 * most PERFMAP_READ_MAX bytes are read per generation (~10 ms of parsing) (the rest waits for
 * the next); at most PERFMAP_ENTRIES_MAX entries are kept, then the file
 * is read no more.  Each is counted in perfmap_refused.
 */
#define PERFMAP_MAX		(256u << 20)
#define PERFMAP_READ_MAX	(1u << 20)
#define PERFMAP_ENTRIES_MAX	131072

struct arena_chunk {
	struct arena_chunk *next;
	size_t		used, size;
	char		data[];
};

struct sym_perfmap {
	struct sym_list	list;
	size_t		cap;
	struct arena_chunk *chunks;
	size_t		arena_bytes;
	off_t		read_off;	/* just after the last complete line read */
	unsigned	checked_gen;
	bool		full;		/* PERFMAP_ENTRIES_MAX reached: read no more */
	uint32_t	seq;		/* line number: later lines outrank earlier */
	char		path[96];
};

static char *
arena_copy(struct sym_perfmap *pm, const char *s, size_t len)
{
	struct arena_chunk *c = pm->chunks;

	if (c == NULL || c->size - c->used < len + 1) {
		size_t size = len + 1 > ARENA_CHUNK ? len + 1 : ARENA_CHUNK;
		if ((c = malloc(sizeof(*c) + size)) == NULL)
			return NULL;
		c->next = pm->chunks;
		c->used = 0;
		c->size = size;
		pm->chunks = c;
		pm->arena_bytes += sizeof(*c) + size;
	}
	char *out = c->data + c->used;
	memcpy(out, s, len);
	out[len] = '\0';
	c->used += len + 1;
	return out;
}

/* The pid of p inside its own PID namespace (last NSpid field). */
static pid_t
ns_pid(pid_t pid)
{
	char path[64], line[256];
	pid_t ns = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return pid;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "NSpid:", 6) == 0) {
			char *tok, *save = NULL;
			for (tok = strtok_r(line + 6, " \t\n", &save); tok;
			     tok = strtok_r(NULL, " \t\n", &save))
				ns = (pid_t)atoi(tok);
			break;
		}
	}
	fclose(f);
	return ns > 0 ? ns : pid;
}

/* "START SIZE name": false for anything else. */
static bool
parse_line(struct sym_perfmap *pm, char *line, size_t len)
{
	char *end, *size_end, *name;
	unsigned long long start, size;

	line[len] = '\0';
	start = strtoull(line, &end, 16);
	if (end == line || *end != ' ')
		return false;
	size = strtoull(end + 1, &size_end, 16);
	if (size_end == end + 1 || *size_end != ' ' || size == 0 || size > UINT32_MAX)
		return false;
	name = size_end + 1;
	if (*name == '\0' || start + size < start)
		return false;
	if (array_reserve(&pm->list.syms, &pm->cap, pm->list.n + 1) < 0)
		return true;	/* memory, not the line: do not count it bad */
	if ((name = arena_copy(pm, name, strlen(name))) == NULL)
		return true;
	pm->list.syms[pm->list.n++] = (struct sym_entry){
		.addr = start, .size = (uint32_t)size, .name = name, .rank = ++pm->seq,
	};
	return true;
}

/* Read what was appended since last time. */
static void
read_more(struct sym_perfmap *pm, struct sym_counters *cnt)
{
	struct stat st;
	char *buf, *line, *nl;
	size_t len, added = 0;
	ssize_t got;
	int fd = open(pm->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || st.st_size <= pm->read_off || st.st_size > PERFMAP_MAX) {
		if (st.st_size > PERFMAP_MAX)
			cnt->perfmap_refused++;
		close(fd);
		return;
	}
	len = st.st_size - pm->read_off;
	if (len > PERFMAP_READ_MAX)
		len = PERFMAP_READ_MAX;
	if ((buf = malloc(len + 1)) == NULL) {
		close(fd);
		return;
	}
	got = pread(fd, buf, len, pm->read_off);
	close(fd);
	/* names are cached by index: drop them before entries move */
	sym_list_forget_names(&pm->list);
	for (line = buf; got > 0 && (nl = memchr(line, '\n', buf + got - line)) != NULL;
	     line = nl + 1) {
		if (pm->list.n >= PERFMAP_ENTRIES_MAX) {
			pm->full = true;
			cnt->perfmap_refused++;
			break;
		}
		if (!parse_line(pm, line, nl - line))
			cnt->perfmap_bad_lines++;
		else
			added++;
	}
	if (got > 0 && line == buf && got == (ssize_t)PERFMAP_READ_MAX) {
		line = buf + got;	/* no newline in a whole read: not a line */
		cnt->perfmap_bad_lines++;
	}
	if (got > 0)
		pm->read_off += line - buf;	/* a partial last line waits */
	free(buf);
	if (added)
		sym_list_sort(&pm->list);
}

const char *
sym_perfmap_find(struct sym_proc *p, uint64_t ip, unsigned gen, bool may_grow,
		 struct sym_counters *cnt)
{
	struct sym_perfmap *pm = p->perfmap;
	long i;

	if (pm == NULL) {
		if ((pm = calloc(1, sizeof(*pm))) == NULL)
			return NULL;
		snprintf(pm->path, sizeof(pm->path), "/proc/%d/root/tmp/perf-%d.map",
			 (int)p->pid, (int)ns_pid(p->pid));
		pm->checked_gen = gen - 1;
		p->perfmap = pm;
	}
	if ((i = sym_list_find(&pm->list, ip)) < 0 && pm->checked_gen != gen && !pm->full &&
	    may_grow) {
		pm->checked_gen = gen;
		read_more(pm, cnt);
		i = sym_list_find(&pm->list, ip);
	}
	return i < 0 ? NULL : sym_list_name(&pm->list, i);
}

size_t
sym_perfmap_bytes(const struct sym_perfmap *pm)
{
	return pm ? sizeof(*pm) + pm->cap * sizeof(struct sym_entry) +
		    pm->arena_bytes + pm->list.pretty_bytes : 0;
}

void
sym_perfmap_free(struct sym_perfmap *pm)
{
	struct arena_chunk *c, *next;

	if (pm == NULL)
		return;
	for (c = pm->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	sym_list_free(&pm->list);
	free(pm);
}
