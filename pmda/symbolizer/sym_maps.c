/*
 * sym_maps.c - the executable mappings of a process, from /proc/PID/maps.
 *
 * Where the kernel has it (6.11+), the PROCMAP_QUERY ioctl hands them out
 * one by one, executable ones only: the kernel skips the rest without
 * formatting them, so a process with 190,000 mappings (95,000 threads,
 * each a stack and a guard page) costs what its few dozen executable ones
 * cost.  Elsewhere the text is parsed, sym_maps_lines_max lines at most: the
 * mappings past the cut go unnamed, and the cut is counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/types.h>
#include "sym_internal.h"
#include "lib/array.h"

/* Lines of the text read per process (vm.max_map_count is 65530 by
 * default; tests lower it); executable mappings kept per process. */
size_t sym_maps_lines_max = 65536;
#define MAPS_EXEC_MAX	65536

/* linux/fs.h of 6.11; older headers lack it (the ABI is fixed). */
#ifndef PROCMAP_QUERY
struct procmap_query {
	__u64	size, query_flags, query_addr;
	__u64	vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	__u32	dev_major, dev_minor, vma_name_size, build_id_size;
	__u64	vma_name_addr, build_id_addr;
};
#define PROCMAP_QUERY_VMA_EXECUTABLE		0x04
#define PROCMAP_QUERY_COVERING_OR_NEXT_VMA	0x10
#define PROCMAP_QUERY	_IOWR('f', 17, struct procmap_query)
#endif

struct map_list {
	struct sym_map	*v;
	size_t		n, cap;
};

static enum sym_map_kind
classify(const char *path)
{
	if (path[0] == '\0')
		return SYM_MAP_ANON;
	if (strcmp(path, "[vdso]") == 0)
		return SYM_MAP_VDSO;
	if (path[0] == '[')
		return SYM_MAP_SPECIAL;
	if (strncmp(path, "/memfd:", 7) == 0)
		return SYM_MAP_MEMFD;
	if (path[0] != '/')
		return SYM_MAP_SPECIAL;
	return SYM_MAP_FILE;
}

/* Append one executable mapping; path is changed (" (deleted)" cut). */
static bool
push(struct map_list *l, uint64_t start, uint64_t end, uint64_t off, unsigned maj,
     unsigned min, uint64_t ino, char *path)
{
	size_t len = strlen(path);
	struct sym_map m = {
		.start = start, .end = end, .pgoff = off, .dev = makedev(maj, min), .ino = ino,
		.kind = classify(path),
	};

	if (end <= start)
		return true;
	if (len >= 10 && strcmp(path + len - 10, " (deleted)") == 0) {
		m.deleted = true;
		path[len - 10] = '\0';
	}
	if (array_reserve(&l->v, &l->cap, l->n + 1) < 0)
		return false;
	if (path[0] && (m.path = strdup(path)) == NULL)
		return false;
	l->v[l->n++] = m;
	return true;
}

/*
 * The [vsyscall] page is not a mapping but the kernel's gate area, the same
 * in every process: the text shows it, PROCMAP_QUERY does not.  So it is
 * taken from our own maps, once, and added to what the ioctl gives.
 */
static bool
add_gate(struct map_list *l)
{
	static int known = -1;		/* -1: not looked yet */
	static unsigned long long lo, hi;
	char line[256], name[] = "[vsyscall]";
	FILE *f;

	if (known < 0 && (f = fopen("/proc/self/maps", "re")) != NULL) {
		known = 0;
		while (fgets(line, sizeof(line), f))
			if (strstr(line, " [vsyscall]") && strstr(line, "x") &&
			    sscanf(line, "%llx-%llx", &lo, &hi) == 2)
				known = 1;
		fclose(f);
	}
	return known != 1 || push(l, lo, hi, 0, 0, 0, 0, name);
}

/* 1: read by ioctl; 0: the kernel has no PROCMAP_QUERY; -1: failed. */
static int
read_query(int fd, struct map_list *l, bool *truncated)
{
	char name[4096];
	uint64_t addr = 0;

	for (;;) {
		struct procmap_query q = {
			.size = sizeof(q), .query_addr = addr,
			.query_flags = PROCMAP_QUERY_VMA_EXECUTABLE | PROCMAP_QUERY_COVERING_OR_NEXT_VMA,
			.vma_name_addr = (uintptr_t)name, .vma_name_size = sizeof(name),
		};

		if (ioctl(fd, PROCMAP_QUERY, &q) < 0) {
			if (errno == ENOENT)	/* no executable mapping above addr */
				return add_gate(l) ? 1 : -1;
			return l->n == 0 && (errno == ENOTTY || errno == EINVAL) ? 0 : -1;
		}
		if (l->n == MAPS_EXEC_MAX) {
			*truncated = true;
			return 1;
		}
		if (q.vma_name_size == 0)
			name[0] = '\0';
		name[sizeof(name) - 1] = '\0';
		if (!push(l, q.vma_start, q.vma_end, q.vma_offset, q.dev_major, q.dev_minor, q.inode, name))
			return -1;
		addr = q.vma_end;
	}
}

/* One text line; only executable mappings are kept. */
static bool
parse_line(char *line, struct map_list *l)
{
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int pos = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms,
		   &off, &maj, &min, &ino, &pos) < 7 || pos == 0)
		return true;
	if (strlen(perms) < 3 || perms[2] != 'x')
		return true;
	line[pos + strcspn(line + pos, "\n")] = '\0';
	return push(l, start, end, off, maj, min, ino, line + pos);
}

/* The text of a maps file, sym_maps_lines_max lines at most. */
static void
parse_text(FILE *f, struct map_list *l, bool *truncated)
{
	char *line = NULL;
	size_t cap = 0, lines = 0;

	while (getline(&line, &cap, f) > 0) {
		if (++lines > sym_maps_lines_max || l->n == MAPS_EXEC_MAX) {
			*truncated = true;
			break;
		}
		if (!parse_line(line, l))
			break;
	}
	free(line);
}

static void
read_text(int fd, struct map_list *l, bool *truncated)
{
	FILE *f = fdopen(fd, "r");

	if (f == NULL) {
		close(fd);
		return;
	}
	parse_text(f, l, truncated);
	fclose(f);	/* and fd */
}

void
sym_maps_mark_exe(struct sym_map *maps, size_t n, const struct stat *exe)
{
	for (size_t i = 0; i < n; i++)
		maps[i].is_exe = exe && maps[i].kind == SYM_MAP_FILE &&
				 maps[i].dev == exe->st_dev && maps[i].ino == exe->st_ino;
}

size_t
sym_maps_parse(FILE *f, const struct stat *exe, struct sym_map **maps)
{
	struct map_list l = { NULL, 0, 0 };
	bool truncated = false;

	parse_text(f, &l, &truncated);
	sym_maps_mark_exe(l.v, l.n, exe);
	*maps = l.v;
	return l.n;
}

bool
sym_maps_read(pid_t pid, struct sym_map **maps, size_t *n, bool *truncated)
{
	char path[64];
	struct map_list l = { NULL, 0, 0 };
	int fd, sts = 0;

	*truncated = false;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	/* STACKPROF_SYM_MAPS_TEXT: the older kernels' way, for tests */
	if (getenv("STACKPROF_SYM_MAPS_TEXT") != NULL ||
	    (sts = read_query(fd, &l, truncated)) == 0)
		read_text(fd, &l, truncated);
	else
		close(fd);
	*maps = l.v;
	*n = l.n;
	return true;
}
