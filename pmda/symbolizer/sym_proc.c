/*
 * sym_proc.c - what we know of each process: its executable mappings from
 * /proc/PID/maps, keyed by (pid, start time) so a reused PID is never
 * symbolized with its predecessor's maps (and by the start addresses of
 * code and stack, so an exec in the same process is noticed too).  Entries sit in a hash by pid
 * and an LRU list the symbolizer trims by bytes.
 *
 * Files are opened as the process sees them, through /proc/PID/root (its
 * mount namespace), and checked against the device and inode in the maps
 * line; a deleted or replaced file is opened through /proc/PID/map_files.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "sym_internal.h"
#include "sym_python.h"

#define PROC_BUCKETS	4096

struct sym_procs {
	struct sym_proc	*bucket[PROC_BUCKETS];
	struct sym_proc	lru;		/* sentinel: lru.lru_next is the newest */
	size_t		bytes, count;
	uint64_t	maps_truncated;	/* reads a bound cut (sym_maps.c) */
};

struct sym_procs *
sym_procs_new(void)
{
	struct sym_procs *ps = calloc(1, sizeof(*ps));

	if (ps)
		ps->lru.lru_next = ps->lru.lru_prev = &ps->lru;
	return ps;
}

static void
lru_unlink(struct sym_proc *p)
{
	p->lru_prev->lru_next = p->lru_next;
	p->lru_next->lru_prev = p->lru_prev;
}

static void
lru_push(struct sym_procs *ps, struct sym_proc *p)
{
	p->lru_next = ps->lru.lru_next;
	p->lru_prev = &ps->lru;
	ps->lru.lru_next->lru_prev = p;
	ps->lru.lru_next = p;
}

static void
free_maps(struct sym_proc *p, struct sym_cache *c)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		sym_cache_unref(c, p->maps[i].elf);
		free(p->maps[i].path);
	}
	free(p->maps);
	p->maps = NULL;
	p->nmaps = 0;
}

void
sym_procs_drop(struct sym_procs *ps, struct sym_cache *c, struct sym_proc *p)
{
	struct sym_proc **pp = &ps->bucket[(unsigned)p->pid % PROC_BUCKETS];

	while (*pp && *pp != p)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = p->hnext;
	lru_unlink(p);
	ps->bytes -= p->bytes;
	ps->count--;
	free_maps(p, c);
	sym_perfmap_free(p->perfmap);
	sym_python_free(p->python);
	free(p);
}

void
sym_procs_free(struct sym_procs *ps, struct sym_cache *c)
{
	if (ps == NULL)
		return;
	while (ps->lru.lru_next != &ps->lru)
		sym_procs_drop(ps, c, ps->lru.lru_next);
	free(ps);
}

struct sym_proc *
sym_procs_get(struct sym_procs *ps, pid_t pid)
{
	struct sym_proc *p;

	for (p = ps->bucket[(unsigned)pid % PROC_BUCKETS]; p; p = p->hnext) {
		if (p->pid == pid) {
			if (ps->lru.lru_next != p) {
				lru_unlink(p);
				lru_push(ps, p);
			}
			return p;
		}
	}
	return NULL;
}

bool
sym_proc_ident(pid_t pid, struct sym_ident *id)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* comm may hold spaces and ')': fields restart after the last ')' */
	if ((p = strrchr(buf, ')')) == NULL)
		return false;
	memset(id, 0, sizeof(*id));
	p++;
	for (field = 3; field <= 28 && *p; field++) {
		while (*p == ' ')
			p++;
		unsigned long long v = strtoull(p, &p, 10);
		if (field == 22)
			id->start_time = v;
		else if (field == 26)
			id->start_code = v;
		else if (field == 28)
			id->start_stack = v;
		while (*p && *p != ' ')
			p++;
	}
	return field > 28 && id->start_time != 0;
}

bool
sym_ident_equal(const struct sym_ident *a, const struct sym_ident *b)
{
	return a->start_time == b->start_time && a->start_code == b->start_code &&
	       a->start_stack == b->start_stack;
}

/* Read the executable mappings of p->pid (sym_maps.c).  false when
 * /proc/PID is gone; *truncated when a bound cut the list. */
static bool
read_maps(struct sym_proc *p, bool *truncated)
{
	char path[64];
	struct sym_map *maps = NULL;
	struct stat exe;
	size_t n = 0;

	if (!sym_maps_read(p->pid, &maps, &n, truncated))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
	sym_maps_mark_exe(maps, n, stat(path, &exe) == 0 ? &exe : NULL);
	p->maps = maps;
	p->nmaps = n;
	p->bytes = sizeof(*p) + n * sizeof(*maps);
	for (size_t i = 0; i < n; i++)
		p->bytes += maps[i].path ? strlen(maps[i].path) + 1 : 0;
	/* a zombie (or kernel thread) has no memory left to name */
	return n > 0;
}

struct sym_proc *
sym_procs_capture(struct sym_procs *ps, struct sym_cache *c, pid_t pid, unsigned gen)
{
	struct sym_proc *old = sym_procs_get(ps, pid), *p;
	unsigned b = (unsigned)pid % PROC_BUCKETS;

	if (old)
		sym_procs_drop(ps, c, old);
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->pid = pid;
	p->nspid = pid;
	p->maps_gen = gen;
	p->checked_gen = gen;
	p->bytes = sizeof(*p);
	struct sym_ident after;
	bool truncated = false;
	if (!sym_proc_ident(pid, &p->id) || !read_maps(p, &truncated) ||
	    !sym_proc_ident(pid, &after) || !sym_ident_equal(&p->id, &after)) {
		/* gone, or exec'd/replaced while we read: nothing trustworthy */
		free_maps(p, c);
		p->lost = true;
		p->bytes = sizeof(*p);
	}
	ps->maps_truncated += truncated;
	p->hnext = ps->bucket[b];
	ps->bucket[b] = p;
	lru_push(ps, p);
	ps->bytes += p->bytes;
	ps->count++;
	return p;
}

bool
sym_procs_reread(struct sym_procs *ps, struct sym_cache *c, struct sym_proc *p, unsigned gen)
{
	struct sym_proc fresh = { .pid = p->pid };
	struct sym_ident now;
	bool truncated = false;

	p->maps_gen = gen;
	if (p->lost || !sym_proc_ident(p->pid, &now) || !sym_ident_equal(&now, &p->id) ||
	    !read_maps(&fresh, &truncated))
		return false;
	ps->maps_truncated += truncated;
	free_maps(p, c);
	ps->bytes -= p->bytes;
	p->maps = fresh.maps;
	p->nmaps = fresh.nmaps;
	p->bytes = fresh.bytes + sym_perfmap_bytes(p->perfmap);
	ps->bytes += p->bytes;
	return true;
}

void
sym_procs_add_bytes(struct sym_procs *ps, struct sym_proc *p, ssize_t delta)
{
	p->bytes += delta;
	ps->bytes += delta;
}

/* fd if it is the file the maps line names (same device and inode). */
static int
keep_if_same(int fd, const struct sym_map *m)
{
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == m->dev && st.st_ino == m->ino)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

int
sym_proc_open_map(const struct sym_proc *p, const struct sym_map *m)
{
	char path[PATH_MAX + 64];
	int fd;

	if (!m->deleted && m->path &&
	    snprintf(path, sizeof(path), "/proc/%d/root%s", (int)p->pid, m->path) < (int)sizeof(path) &&
	    (fd = keep_if_same(open(path, O_RDONLY | O_CLOEXEC), m)) >= 0)
		return fd;
	/* the mapped file itself, whatever its name became */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)p->pid, m->start, m->end);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
		return fd;
	/* the process is gone (a short-lived one, exited before its table was
	 * needed): its path in our namespace will do if the inode matches */
	if (!m->deleted && m->path)
		return keep_if_same(open(m->path, O_RDONLY | O_CLOEXEC), m);
	return -1;
}

static void
stamp_of(const struct stat *st, struct sym_stamp *out)
{
	out->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
	out->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	out->size = st->st_size;
}

struct sym_elf *
sym_proc_map_elf(struct sym_proc *p, struct sym_map *m, struct sym_cache *c,
		 struct sym_counters *cnt)
{
	struct sym_stamp stamp = { 0 };
	char root[64];
	struct sym_elf *e;
	struct stat st;
	bool stamped;
	int fd;

	if (m->tried)
		return m->elf;
	m->tried = true;
	if (m->kind == SYM_MAP_VDSO)
		return m->elf = sym_vdso_load(p->pid, m->start, m->end, c, cnt);
	/* the file's stamp says whether a cached table is of this file; one
	 * that can no longer be opened gets the newest table of its inode */
	fd = sym_proc_open_map(p, m);
	stamped = fd >= 0 && fstat(fd, &st) == 0;
	if (stamped)
		stamp_of(&st, &stamp);
	if ((e = sym_cache_get(c, m->dev, m->ino, stamped ? &stamp : NULL)) != NULL) {
		if (fd >= 0)
			close(fd);
		cnt->cache_hits++;
		return m->elf = e;
	}
	cnt->cache_misses++;
	if (fd < 0) {
		cnt->proc_errors++;
		return NULL;
	}
	snprintf(root, sizeof(root), "/proc/%d/root", (int)p->pid);
	if (access(root, X_OK) != 0)
		root[0] = '\0';	/* exited: look for debug files in our namespace */
	e = sym_elf_load(fd, root, m->path);
	close(fd);
	if (e != NULL) {
		cnt->debug_mismatches += e->debug_mismatches;
		cnt->elf_refused += e->refused;
	}
	if (e == NULL) {
		/* not an ELF we can read: remember that, as an empty table, so
		 * other processes mapping it do not parse it again */
		cnt->elf_errors++;
		if ((e = sym_elf_empty()) == NULL)
			return NULL;
	}
	e->dev = m->dev;
	e->ino = m->ino;
	e->stamp = stamp;
	sym_cache_put(c, e);
	return m->elf = e;
}

struct sym_map *
sym_proc_find_map(const struct sym_proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ip < p->maps[mid].start)
			hi = mid;
		else if (ip >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

struct sym_proc *
sym_procs_oldest(struct sym_procs *ps)
{
	return ps->lru.lru_prev == &ps->lru ? NULL : ps->lru.lru_prev;
}

struct sym_proc *
sym_procs_newer(struct sym_procs *ps, struct sym_proc *p)
{
	return p->lru_prev == &ps->lru ? NULL : p->lru_prev;
}

size_t
sym_procs_bytes(const struct sym_procs *ps)
{
	return ps->bytes;
}

uint64_t
sym_procs_truncated(const struct sym_procs *ps)
{
	return ps->maps_truncated;
}

size_t
sym_procs_count(const struct sym_procs *ps)
{
	return ps->count;
}
