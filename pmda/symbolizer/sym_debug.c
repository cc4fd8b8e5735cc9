/*
 * sym_debug.c - symbols of stripped files from where distributions put
 * them: /usr/lib/debug/.build-id/xx/rest.debug, the file named by
 * .gnu_debuglink (beside the binary, in its .debug/ directory, or under
 * /usr/lib/debug), and MiniDebugInfo (.gnu_debugdata, an xz-compressed ELF
 * holding a .symtab of the functions .dynsym lacks, as Fedora ships).
 *
 * A debug file is used only when it proves it belongs to the binary: the
 * same build-id, or the CRC-32 .gnu_debuglink records.  A mismatch is
 * counted and the file ignored, so we never print another build's names.
 * Only symbol tables are read, never DWARF.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "sym_internal.h"

/* A decompression bomb must not expand without limit: the inflated image
 * may not pass MINIDEBUG_MAX (Fedora's are < 1 MB: a .symtab of what
 * .dynsym lacks), nor the decoder use more than MINIDEBUG_MEMLIMIT (xz -9
 * needs 65 MB: MiniDebugInfo is made with the default, 9 MB). */
#define MINIDEBUG_MAX		(8u << 20)
#define MINIDEBUG_MEMLIMIT	(32u << 20)

bool
sym_debug_crc32(int fd, uint32_t *crc)
{
	static unsigned char buf[1 << 16];
	uLong c = crc32(0L, Z_NULL, 0);
	off_t off = 0;
	ssize_t r;

	while ((r = pread(fd, buf, sizeof(buf), off)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		c = crc32(c, buf, (uInt)r);
		off += r;
	}
	*crc = (uint32_t)c;
	return true;
}

static int
open_under(const char *root, const char *path)
{
	char full[PATH_MAX];

	if (snprintf(full, sizeof(full), "%s%s", root, path) >= (int)sizeof(full))
		return -1;
	return open(full, O_RDONLY | O_CLOEXEC);
}

/* Symbols of debug file fd into e, if it has a .symtab.  Returns the count. */
static long
take_symbols(struct sym_elf *e, int fd, struct sym_elf_info *dinfo)
{
	struct stat st;
	struct sym_src src = { .fd = fd };

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	src.size = st.st_size;
	return sym_elf_parse(e, &src, dinfo, SYM_PICK_SYMTAB, false);
}

static bool
try_build_id(struct sym_elf *e, const struct sym_elf_info *info, const char *root)
{
	char path[64 + 2 * sizeof(info->build_id) + 16];
	struct sym_elf_info dinfo;
	int fd, n = 0;

	if (info->build_id_len < 2)
		return false;
	n = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", info->build_id[0]);
	for (int i = 1; i < info->build_id_len; i++)
		n += snprintf(path + n, sizeof(path) - n, "%02x", info->build_id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	if ((fd = open_under(root, path)) < 0)
		return false;
	/* parse notes only first: the symbols must not land before the check */
	struct sym_src src = { .fd = fd };
	struct stat st;
	bool ok = false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		src.size = st.st_size;
		if (sym_elf_parse(e, &src, &dinfo, SYM_PICK_NONE, false) == 0 &&
		    dinfo.build_id_len == info->build_id_len &&
		    memcmp(dinfo.build_id, info->build_id, info->build_id_len) == 0)
			ok = take_symbols(e, fd, &dinfo) > 0;
		else
			e->debug_mismatches++;
	}
	close(fd);
	return ok;
}

static bool
try_debuglink_at(struct sym_elf *e, const struct sym_elf_info *info,
		 const char *root, const char *candidate)
{
	struct sym_elf_info dinfo;
	uint32_t crc;
	bool ok = false;
	int fd = open_under(root, candidate);

	if (fd < 0)
		return false;
	if (sym_debug_crc32(fd, &crc) && crc == info->debuglink_crc)
		ok = take_symbols(e, fd, &dinfo) > 0;
	else
		e->debug_mismatches++;
	close(fd);
	return ok;
}

static bool
try_debuglink(struct sym_elf *e, const struct sym_elf_info *info,
	      const char *root, const char *path)
{
	char dir[PATH_MAX], cand[PATH_MAX + 300];
	const char *slash = strrchr(path, '/');
	const char *fmt[] = { "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };

	if (info->debuglink[0] == '\0' || slash == NULL || (size_t)(slash - path) >= sizeof(dir))
		return false;
	memcpy(dir, path, slash - path);
	dir[slash - path] = '\0';
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		snprintf(cand, sizeof(cand), fmt[i], dir, info->debuglink);
		if (strcmp(cand, path) == 0)	/* a link to itself proves nothing */
			continue;
		if (try_debuglink_at(e, info, root, cand))
			return true;
	}
	return false;
}

enum sym_source
sym_debug_find_file(struct sym_elf *e, const struct sym_elf_info *info,
		    const char *root, const char *path)
{
	if (try_build_id(e, info, root))
		return SYM_SRC_BUILDID;
	if (path && path[0] == '/' && try_debuglink(e, info, root, path))
		return SYM_SRC_DEBUGLINK;
	return SYM_SRC_NONE;
}

/* Sources that a debug file would improve on. */
static bool
lacks_debug_symbols(const struct sym_elf *e)
{
	return e->source == SYM_SRC_NONE || e->source == SYM_SRC_DYNSYM ||
	       e->source == SYM_SRC_MINIDEBUG;
}

void
sym_debug_note_miss(struct sym_elf *e, const char *root, unsigned gen)
{
	struct sym_elf_info info = { .build_id_len = 0 };
	struct sym_elf *got;

	if (e == NULL || e->build_id_len < 2 || e->debug_pending != NULL ||
	    e->debug_gen == gen || !lacks_debug_symbols(e))
		return;
	e->debug_gen = gen;
	memcpy(info.build_id, e->build_id, e->build_id_len);
	info.build_id_len = e->build_id_len;
	/* one failed open per stripped file and drain while nothing is there */
	if ((got = sym_elf_empty()) == NULL)
		return;
	if (try_build_id(got, &info, root)) {
		sym_list_sort(&got->list);
		e->debug_pending = got;
	} else {
		sym_elf_free(got);
	}
}

size_t
sym_debug_apply(struct sym_cache *c)
{
	size_t changed = 0;

	for (struct sym_elf *e = sym_cache_next(c, NULL); e; e = sym_cache_next(c, e))
		if (e->debug_pending != NULL) {
			struct sym_elf *got = e->debug_pending;
			e->debug_pending = NULL;
			sym_elf_take_symbols(e, got, SYM_SRC_BUILDID);
			changed++;
		}
	return changed;
}

/* Inflate an xz stream; NULL when it is corrupt, or too large (*too_big). */
static char *
xz_inflate(const uint8_t *in, size_t inlen, size_t *outlen, bool *too_big)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	size_t cap = inlen * 4 + 4096;
	char *out = NULL, *grown;
	lzma_ret r;

	*too_big = false;
	if (lzma_stream_decoder(&strm, MINIDEBUG_MEMLIMIT, 0) != LZMA_OK)
		return NULL;
	strm.next_in = in;
	strm.avail_in = inlen;
	for (;;) {
		if (cap > MINIDEBUG_MAX)
			cap = MINIDEBUG_MAX;
		if ((grown = realloc(out, cap)) == NULL)
			goto fail;
		out = grown;
		strm.next_out = (uint8_t *)out + strm.total_out;
		strm.avail_out = cap - strm.total_out;
		r = lzma_code(&strm, LZMA_FINISH);
		if (r == LZMA_STREAM_END)
			break;
		if (r == LZMA_MEMLIMIT_ERROR)
			*too_big = true;
		if (r != LZMA_OK && r != LZMA_BUF_ERROR)
			goto fail;
		if (strm.avail_out != 0)	/* input ended before the stream did */
			goto fail;
		if (cap == MINIDEBUG_MAX) {	/* full, and more to come */
			*too_big = true;
			goto fail;
		}
		cap *= 2;
	}
	*outlen = strm.total_out;
	lzma_end(&strm);
	return out;
fail:
	lzma_end(&strm);
	free(out);
	return NULL;
}

long
sym_debug_minidebug(struct sym_elf *e, const struct sym_src *src,
		    const struct sym_elf_info *info)
{
	uint8_t *packed;
	char *image;
	size_t len;
	long n = -1;
	bool too_big;

	if (info->debugdata_size == 0)
		return 0;
	if (info->debugdata_size > MINIDEBUG_MAX) {
		e->refused++;
		return 0;
	}
	if ((packed = malloc(info->debugdata_size)) == NULL)
		return -1;
	struct sym_src whole = *src;
	if (whole.fd >= 0) {
		if (pread(whole.fd, packed, info->debugdata_size, info->debugdata_off) !=
		    (ssize_t)info->debugdata_size)
			goto out;
	} else {
		memcpy(packed, whole.mem + info->debugdata_off, info->debugdata_size);
	}
	if ((image = xz_inflate(packed, info->debugdata_size, &len, &too_big)) != NULL) {
		struct sym_src mem = { .fd = -1, .mem = image, .size = len };
		struct sym_elf_info minfo;
		n = sym_elf_parse(e, &mem, &minfo, SYM_PICK_SYMTAB, false);
		free(image);
	}
	if (n < 0 && too_big)
		e->refused++;
	else if (n < 0)
		e->debug_mismatches++;
out:
	free(packed);
	return n;
}
