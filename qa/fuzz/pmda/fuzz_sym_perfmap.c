/*
 * fuzz_sym_perfmap.c - JIT perf maps as sym_perfmap.c reads them.  The
 * symbolizer reads /proc/PID/root/tmp/perf-NSPID.map, so the harness writes
 * the input as its own perf map, /tmp/perf-OURPID.map: the part before the
 * first NUL first, looked up, then the rest appended and looked up again
 * (the map is read incrementally as a JIT writes it).  Every name found
 * must be a valid folded frame.
 */
#include <fcntl.h>
#include "fuzz_sym.h"

static char map_path[64];

static void
rm_map(void)
{
	unlink(map_path);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
	atexit(rm_map);
	return 0;
}

static void
put(const char *text, size_t len, int flags)
{
	int fd = open(map_path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0600);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		perror(map_path);
		exit(2);
	}
	close(fd);
}

/* Look up every address the text names (and the byte after it). */
static void
lookup_all(struct sym_proc *p, const char *text, unsigned gen, struct sym_counters *cnt)
{
	const char *name;

	for (const char *l = text; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		uint64_t ip = strtoull(l, NULL, 16);

		if ((name = sym_perfmap_find(p, ip, gen, true, cnt)) != NULL)
			fuzz_check_name(name);
		if ((name = sym_perfmap_find(p, ip + 1, gen, true, cnt)) != NULL)
			fuzz_check_name(name);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*part[2];
	char			*copy = fuzz_split(data, size, part, 2);
	struct sym_proc		p = { .pid = getpid() };
	struct sym_counters	cnt = { 0 };
	size_t			nrest = size > strlen(part[0]) ? size - strlen(part[0]) - 1 : 0;
	const char		*rest = nrest ? (const char *)data + strlen(part[0]) + 1 : "";

	put(part[0], strlen(part[0]), O_TRUNC);
	sym_perfmap_find(&p, UINT64_MAX, 1, true, &cnt);	/* a miss reads the file */
	lookup_all(&p, part[0], 1, &cnt);
	put(rest, nrest, O_APPEND);
	sym_perfmap_find(&p, UINT64_MAX, 2, true, &cnt);
	lookup_all(&p, part[0], 2, &cnt);
	lookup_all(&p, part[1], 2, &cnt);
	sym_perfmap_bytes(p.perfmap);
	sym_perfmap_free(p.perfmap);
	free(copy);
	return 0;
}
