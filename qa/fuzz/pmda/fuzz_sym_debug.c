/*
 * fuzz_sym_debug.c - separate debug information (sym_debug.c).  The first
 * input byte picks what the rest is:
 *
 *   0  an xz stream, as .gnu_debugdata holds it (MiniDebugInfo)
 *   1  the ELF inside MiniDebugInfo; the harness compresses it, so the
 *      fuzzer reaches the inner parser past xz's checksums
 *   2  a stripped binary and its debug file: a 4-byte little-endian length,
 *      the binary, then the debug file.  The debug file is put where the
 *      binary's build-id and .gnu_debuglink say (under a scratch root) and
 *      the binary is loaded as the PMDA loads a mapped file.
 */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <sys/stat.h>
#include "fuzz_sym.h"

static const char *root;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const dirs[] = {
		"usr", "usr/lib", "usr/lib/debug", "usr/lib/debug/.build-id", "opt", "opt/app",
	};
	char	dir[256];

	(void)argc;
	(void)argv;
	root = fuzz_scratch();
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, dirs[i]);
		mkdir(dir, 0700);
	}
	return 0;
}

static struct sym_elf *
new_table(void)
{
	struct sym_elf *e = sym_elf_empty();	/* what sym_elf_load starts from */

	if (e == NULL)
		exit(2);
	return e;
}

static void
minidebug(const uint8_t *xz, size_t len)
{
	struct sym_elf		*e = new_table();
	struct sym_src		src = { .fd = -1, .mem = (const char *)xz, .size = len };
	struct sym_elf_info	info = { .debugdata_off = 0, .debugdata_size = len };

	sym_debug_minidebug(e, &src, &info);
	sym_list_sort(&e->list);
	fuzz_check_list(&e->list, 64);
	sym_elf_free(e);
}

static void
minidebug_packed(const uint8_t *elf, size_t len)
{
	size_t	cap = lzma_stream_buffer_bound(len), out = 0;
	uint8_t	*xz = malloc(cap);

	if (xz == NULL || lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, elf, len,
						   xz, &out, cap) != LZMA_OK)
		exit(2);
	minidebug(xz, out);
	free(xz);
}

/* False when the name cannot be a file (".", ".."): then there is none. */
static bool
put_file(const char *path, const uint8_t *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return false;
	if (write(fd, data, len) != (ssize_t)len) {
		perror(path);
		exit(2);
	}
	close(fd);
	return true;
}

/* Where the PMDA would look for bin's debug file, as sym_debug.c spells it. */
static void
debug_paths(const uint8_t *bin, size_t len, char dir[256], char file[512], char link[512])
{
	struct sym_elf		*e = new_table();
	struct sym_src		src = { .fd = -1, .mem = (const char *)bin, .size = len };
	struct sym_elf_info	info;
	int			n;

	file[0] = link[0] = '\0';
	if (sym_elf_parse(e, &src, &info, SYM_PICK_NONE, false) == 0 && info.build_id_len >= 2) {
		snprintf(dir, 256, "%s/usr/lib/debug/.build-id/%02x", root, info.build_id[0]);
		n = snprintf(file, 512, "%s/", dir);
		for (int i = 1; i < info.build_id_len; i++)
			n += snprintf(file + n, 512 - n, "%02x", info.build_id[i]);
		snprintf(file + n, 512 - n, ".debug");
	}
	if (info.debuglink[0])
		snprintf(link, 512, "%s/opt/app/%s", root, info.debuglink);
	sym_elf_free(e);
}

static void
with_debug_file(const uint8_t *data, size_t size)
{
	char		dir[256], file[512], link[512], prog[256];
	uint32_t	blen;
	int		fd;

	if (size < 4)
		return;
	memcpy(&blen, data, 4);
	data += 4;
	size -= 4;
	if (blen > size)
		blen = size;
	debug_paths(data, blen, dir, file, link);
	if (file[0]) {
		mkdir(dir, 0700);
		put_file(file, data + blen, size - blen);
	}
	if (link[0] && (strcmp(link + strlen(root), "/opt/app/prog") == 0 ||
			!put_file(link, data + blen, size - blen)))
		link[0] = '\0';
	snprintf(prog, sizeof(prog), "%s/opt/app/prog", root);
	if (put_file(prog, data, blen) && (fd = open(prog, O_RDONLY | O_CLOEXEC)) >= 0) {
		struct sym_elf *e = sym_elf_load(fd, root, "/opt/app/prog");

		close(fd);
		if (e) {
			fuzz_check_list(&e->list, 64);
			sym_elf_free(e);
		}
	}
	if (file[0]) {
		unlink(file);
		rmdir(dir);
	}
	if (link[0])
		unlink(link);
	unlink(prog);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	switch (fuzz_byte(&data, &size) % 3) {
	case 0:
		minidebug(data, size);
		break;
	case 1:
		minidebug_packed(data, size);
		break;
	case 2:
		with_debug_file(data, size);
		break;
	}
	return 0;
}
