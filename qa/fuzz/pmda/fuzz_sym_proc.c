/*
 * fuzz_sym_proc.c - /proc/PID/maps as sym_proc.c reads it: the input is
 * the text of a maps file.  Beyond "no crash": every mapping kept is
 * non-empty (start < end), anonymous ones have no path, and a sorted
 * table finds each mapping by its addresses.  (A deleted file may still
 * end in " (deleted)": its name did before it was deleted.)
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "fuzz_sym.h"

static void
check_maps(struct sym_map *maps, size_t n)
{
	struct sym_proc	p = { .maps = maps, .nmaps = n };
	bool		sorted = true;

	for (size_t i = 0; i < n; i++) {
		const struct sym_map *m = &maps[i];

		if (m->start >= m->end || m->elf != NULL || m->tried)
			abort();
		if (m->kind == SYM_MAP_ANON && m->path != NULL)
			abort();
		if (i > 0 && maps[i - 1].end > m->start)
			sorted = false;
	}
	for (size_t i = 0; i < n && sorted; i++)
		if (sym_proc_find_map(&p, maps[i].start) != &maps[i] ||
		    sym_proc_find_map(&p, maps[i].end - 1) != &maps[i])
			abort();
	sym_proc_find_map(&p, 0);
	sym_proc_find_map(&p, UINT64_MAX);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stat	exe = { .st_dev = makedev(0xfe, 0), .st_ino = 10994276 };
	struct sym_map	*maps = NULL;
	size_t		n;
	FILE		*f;

	if (size == 0 || (f = fmemopen((void *)data, size, "r")) == NULL)
		return 0;
	n = sym_maps_parse(f, (data[0] & 1) ? &exe : NULL, &maps);
	fclose(f);
	check_maps(maps, n);
	for (size_t i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
	return 0;
}
