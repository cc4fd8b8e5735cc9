/*
 * unwind_file_id.c - the identity a table is shared by across processes.
 *
 * A table depends only on the file's bytes, so two mappings of equal bytes
 * may share one: the GNU build-id says so across copies, containers and
 * reinstalls.  Without a build-id, (device, inode, size, mtime) stands in,
 * so a file rewritten in place gets a new identity.  The build-id is read
 * by libdw's dwelf_elf_gnu_build_id (the symbolizer reads its own notes,
 * privately, in pmda/symbolizer/sym_elf.c).
 */
#include <elfutils/libdwelf.h>
#include <stdio.h>
#include <sys/stat.h>
#include "unwind_table.h"

/* "build-id:HEX" from elf's note, or 0 when it has none (or one too long
 * for len: a hostile note; the inode then stands in). */
static int
build_id_key(Elf *elf, char *id, size_t len)
{
	const void *bits;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
	size_t at;

	if (n <= 0 || len < sizeof("build-id:") + 2 * (size_t)n)
		return 0;
	at = (size_t)snprintf(id, len, "build-id:");
	for (ssize_t i = 0; i < n; i++)
		at += (size_t)snprintf(id + at, len - at, "%02x", ((const unsigned char *)bits)[i]);
	return 1;
}

int
unwind_file_id(int fd, char *id, size_t len)
{
	struct stat st;
	Elf *elf;
	int found;

	if (len < UNWIND_FILE_ID_LEN)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	found = build_id_key(elf, id, len);
	if (elf)
		elf_end(elf);
	if (found)
		return 0;
	if (fstat(fd, &st) != 0)
		return -1;
	snprintf(id, len, "inode:%llx:%llu:%lld:%lld.%09ld", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino, (long long)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	return 0;
}

int
unwind_file_id_mem(const void *image, size_t len, char *id, size_t idlen)
{
	Elf *elf;
	int found;

	if (idlen < UNWIND_FILE_ID_LEN)
		return -1;
	elf_version(EV_CURRENT);
	/* libelf only reads the image; its prototype just is not const */
	elf = elf_memory((char *)(uintptr_t)image, len);
	found = build_id_key(elf, id, idlen);
	if (elf)
		elf_end(elf);
	return found ? 0 : -1;
}
