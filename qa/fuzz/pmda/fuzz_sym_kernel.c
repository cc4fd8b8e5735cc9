/*
 * fuzz_sym_kernel.c - /proc/kallsyms as sym_kernel.c reads it: the input
 * is the file (a memfd, read from its start through the descriptor, as
 * the symbolizer reads the /proc/kallsyms it opened before dropping
 * privileges).  Every name
 * found must be a valid folded frame, whatever the file held.
 */
#include "fuzz_sym.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char			path[32];
	int			fd = fuzz_memfd(data, size, path);
	struct sym_kernel	*k = sym_kernel_load(fd);

	close(fd);
	if (k == NULL)
		return 0;
	if (sym_kernel_count(k) == 0)
		abort();	/* an empty table is reported as NULL */
	/* the addresses the file itself names, and the edges */
	const char *line[1];
	char *text = fuzz_split(data, size, line, 1);
	for (const char *l = line[0]; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		uint64_t ip = strtoull(l, NULL, 16);
		const char *name = sym_kernel_find(k, ip);

		if (name)
			fuzz_check_name(name);
		name = sym_kernel_find(k, ip + 1);
		if (name)
			fuzz_check_name(name);
	}
	free(text);
	sym_kernel_find(k, 0);
	sym_kernel_find(k, UINT64_MAX);
	sym_kernel_bytes(k);
	sym_kernel_free(k);
	return 0;
}
