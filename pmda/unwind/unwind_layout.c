/*
 * unwind_layout.c - the PT_LOAD layout that turns a mapping's pcs into the
 * link-time addresses of its file's table, read with libelf (only the
 * program headers are read).  Which file a table belongs to is
 * unwind_file_id() (unwind_file_id.c); the vDSO without a build-id is
 * named by a hash of its image here.
 */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unwind_internal.h"
#include "lib/hash.h"

static int
read_layout(Elf *elf, struct ulayout *l)
{
	size_t n;
	GElf_Ehdr eh;

	memset(l, 0, sizeof(*l));
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_machine != EM_X86_64 || elf_getphdrnum(elf, &n) != 0 || n == 0 || n > 4096)
		return -1;
	if (!(l->loads = calloc(n, sizeof(*l->loads))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			l->loads[l->nloads++] = (struct uload){ ph.p_offset, ph.p_vaddr, ph.p_filesz,
								 (ph.p_flags & PF_X) != 0 };
	}
	if (l->nloads == 0) {
		unwind_layout_free(l);
		return -1;
	}
	return 0;
}

int
unwind_layout_fd(int fd, struct ulayout *l)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int err = read_layout(elf, l);

	elf_end(elf);
	return err;
}

int
unwind_layout_mem(const void *image, size_t len, struct ulayout *l)
{
	Elf *elf = elf_memory((char *)(uintptr_t)image, len);
	int err = read_layout(elf, l);

	elf_end(elf);
	return err;
}

void
unwind_layout_free(struct ulayout *l)
{
	free(l->loads);
	memset(l, 0, sizeof(*l));
}

void
unwind_image_id(const void *image, size_t len, char *id, size_t idlen)
{
	if (unwind_file_id_mem(image, len, id, idlen) == 0)
		return;
	snprintf(id, idlen, "image:%016llx:%zu", (unsigned long long)hash_stable64(image, len), len);
}
/*
 * A mapping at start maps file offset pgoff (page-aligned); the segment
 * holding it may begin a little after pgoff in the file, so the page of
 * its offset is what must hold pgoff.  Then pc = start + (off - pgoff)
 * and vaddr = off - p_offset + p_vaddr, so vaddr = pc - bias with
 * bias = start - pgoff + p_offset - p_vaddr (modulo 2^64).
 */
bool
unwind_mapping_bias(const struct ulayout *l, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	/* where segments share a page (old binaries), the executable one */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < l->nloads; i++) {
			const struct uload *s = &l->loads[i];
			uint64_t page = s->offset & ~0xfffull;

			if ((pass == 0 && !s->exec) || pgoff < page || pgoff >= s->offset + s->filesz)
				continue;
			*bias = start - pgoff + s->offset - s->vaddr;
			return true;
		}
	}
	return false;
}
