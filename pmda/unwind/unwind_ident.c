/*
 * unwind_ident.c - what makes two mapped files the same table: the GNU
 * build-id when the file has one (the same library in two containers, or
 * a file copied, shares one table), else device, inode, mtime and size;
 * and the PT_LOAD layout that turns a mapping's pcs into the table's
 * link-time addresses.  Read with libelf, which only maps the headers and
 * the note segments here.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "unwind_internal.h"

#define NT_GNU_BUILD_ID_	3

/* The build-id note of one PT_NOTE segment, if it holds one. */
static void
note_build_id(Elf *elf, const GElf_Phdr *ph, struct ufile_id *id)
{
	Elf_Data *d = elf_getdata_rawchunk(elf, ph->p_offset, ph->p_filesz, ELF_T_NHDR);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID_ && nh.n_namesz == 4 &&
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= sizeof(id->build_id)) {
			memcpy(id->build_id, (const char *)d->d_buf + desc_off, nh.n_descsz);
			id->build_id_len = nh.n_descsz;
			return;
		}
	}
}

static int
identify(Elf *elf, struct ufile_id *id, struct ulayout *l)
{
	size_t n;
	GElf_Ehdr eh;

	memset(l, 0, sizeof(*l));
	id->build_id_len = 0;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_machine != EM_X86_64 || elf_getphdrnum(elf, &n) != 0 || n == 0 || n > 4096)
		return -1;
	if (!(l->loads = calloc(n, sizeof(*l->loads))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD)
			l->loads[l->nloads++] = (struct uload){ ph.p_offset, ph.p_vaddr, ph.p_filesz,
								 (ph.p_flags & PF_X) != 0 };
		else if (ph.p_type == PT_NOTE && id->build_id_len == 0)
			note_build_id(elf, &ph, id);
	}
	if (l->nloads == 0) {
		unwind_layout_free(l);
		return -1;
	}
	return 0;
}

int
unwind_identify_fd(int fd, struct ufile_id *id, struct ulayout *l)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int err = identify(elf, id, l);

	elf_end(elf);
	return err;
}

int
unwind_identify_mem(const void *image, size_t len, struct ufile_id *id, struct ulayout *l)
{
	Elf *elf = elf_memory((char *)image, len);
	int err = identify(elf, id, l);

	elf_end(elf);
	return err;
}

void
unwind_layout_free(struct ulayout *l)
{
	free(l->loads);
	memset(l, 0, sizeof(*l));
}

bool
unwind_id_equal(const struct ufile_id *a, const struct ufile_id *b)
{
	if (a->build_id_len || b->build_id_len)
		return a->build_id_len == b->build_id_len &&
		       memcmp(a->build_id, b->build_id, a->build_id_len) == 0;
	return a->dev == b->dev && a->ino == b->ino && a->mtime_ns == b->mtime_ns &&
	       a->size == b->size;
}

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ull;
	return h;
}

uint64_t
unwind_id_hash(const struct ufile_id *id)
{
	uint64_t h = 0xcbf29ce484222325ull;

	if (id->build_id_len)
		return fnv(h, id->build_id, id->build_id_len);
	h = fnv(h, &id->dev, sizeof(id->dev));
	h = fnv(h, &id->ino, sizeof(id->ino));
	h = fnv(h, &id->mtime_ns, sizeof(id->mtime_ns));
	return fnv(h, &id->size, sizeof(id->size));
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
