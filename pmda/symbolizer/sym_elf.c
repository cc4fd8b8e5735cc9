/*
 * sym_elf.c - read one ELF file into a function table: the symbols of
 * .symtab (else .dynsym), the PT_LOAD layout that turns a mapping's file
 * offset into a link-time address, and the notes that lead to separate
 * debug files (build-id, .gnu_debuglink, .gnu_debugdata).  Which of a
 * file's sources a table is read from is sym_file.c's.
 *
 * Only the string table and the symbols we keep are held after loading; the
 * file itself is closed, so a cached table pins no file and no mapping.
 * Every offset and index read from the file is checked against the file
 * size before use: a truncated or hostile file yields an error, not a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sym_internal.h"
#include "lib/array.h"

static bool
src_read(const struct sym_src *src, uint64_t off, size_t len, void *dst)
{
	if (off > src->size || len > src->size - off)
		return false;
	if (src->fd < 0) {
		memcpy(dst, src->mem + off, len);
		return true;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t r = pread(src->fd, (char *)dst + done, len - done, off + done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		done += r;
	}
	return true;
}

static uint64_t
get_uint(const unsigned char *p, int size, bool big)
{
	uint64_t v = 0;

	for (int i = 0; i < size; i++)
		v |= (uint64_t)p[big ? size - 1 - i : i] << (8 * i);
	return v;
}

/*
 * libelf sizes its section array from the header before we see a thing,
 * and a header may claim 2^32 sections (extended numbering: the count in
 * section 0) of a sparse file: 6 GB for libelf.  So the count is read and
 * bounded here first (SYM_SECTIONS_MAX).
 */
static bool
section_count_ok(const struct sym_src *src)
{
	unsigned char h[64], s0[64];
	bool big, wide;
	uint64_t shoff, shnum;

	if (!src_read(src, 0, 52, h) || memcmp(h, ELFMAG, SELFMAG) != 0)
		return true;		/* not ELF: libelf says so */
	wide = h[EI_CLASS] == ELFCLASS64;
	big = h[EI_DATA] == ELFDATA2MSB;
	if (wide && !src_read(src, 0, 64, h))
		return false;
	shoff = get_uint(h + (wide ? 0x28 : 0x20), wide ? 8 : 4, big);
	shnum = get_uint(h + (wide ? 0x3c : 0x30), 2, big);
	if (shnum == 0 && shoff != 0) {
		if (!src_read(src, shoff, wide ? 64 : 40, s0))
			return false;
		shnum = get_uint(s0 + (wide ? 0x20 : 0x14), wide ? 8 : 4, big);
	}
	return shnum <= SYM_SECTIONS_MAX;
}

static Elf *
src_open(const struct sym_src *src)
{
	if (src->fd >= 0)
		return elf_begin(src->fd, ELF_C_READ, NULL);
	return elf_memory((char *)src->mem, src->size);
}

/* A string table copied out of the file, NUL-terminated whatever it holds. */
static char *
read_strtab(const struct sym_src *src, const GElf_Shdr *sh)
{
	char *blob;

	if (sh->sh_type != SHT_STRTAB || sh->sh_size == 0 || sh->sh_size > src->size)
		return NULL;
	blob = malloc(sh->sh_size + 1);
	if (blob == NULL)
		return NULL;
	if (!src_read(src, sh->sh_offset, sh->sh_size, blob)) {
		free(blob);
		return NULL;
	}
	blob[sh->sh_size] = '\0';
	return blob;
}

static bool
add_blob(struct sym_elf *e, char *blob, size_t size)
{
	if (array_reserve(&e->blobs, &e->blobcap, (size_t)e->nblobs + 1) < 0)
		return false;
	e->blobs[e->nblobs++] = blob;
	e->blob_bytes += size;
	return true;
}

/* Which alias names an address: global over weak over local (as perf
 * chooses), then the name with fewer leading underscores. */
static uint32_t
alias_rank(int bind, const char *name)
{
	uint32_t r = bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : 1;
	uint32_t u = 0;

	while (name[u] == '_' && u < 3)
		u++;
	return r * 4 + (3 - u);
}

/* Append the function symbol sym (names in blob of blob_size bytes). */
static bool
add_symbol(struct sym_elf *e, const GElf_Sym *sym, const char *blob, size_t blob_size)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (type != STT_FUNC && type != STT_GNU_IFUNC)
		return false;
	if (sym->st_shndx == SHN_UNDEF || sym->st_value == 0 ||
	    sym->st_name == 0 || sym->st_name >= blob_size)
		return false;
	e->list.syms[e->list.n++] = (struct sym_entry){
		.addr = sym->st_value,
		.name = blob + sym->st_name,
		.size = sym->st_size > UINT32_MAX ? UINT32_MAX : (uint32_t)sym->st_size,
		.rank = alias_rank(GELF_ST_BIND(sym->st_info), blob + sym->st_name),
	};
	return true;
}

/* Symbol i of a chunk libelf converted to host form. */
static void
to_gelf(const char *raw, size_t i, bool wide, GElf_Sym *out)
{
	if (wide) {
		Elf64_Sym s;

		memcpy(&s, raw + i * sizeof(s), sizeof(s));
		*out = s;
	} else {
		Elf32_Sym s;

		memcpy(&s, raw + i * sizeof(s), sizeof(s));
		*out = (GElf_Sym){ .st_name = s.st_name, .st_info = s.st_info, .st_other = s.st_other,
				   .st_shndx = s.st_shndx, .st_value = s.st_value, .st_size = s.st_size };
	}
}

/*
 * The symbols of section sh, read SYM_CHUNK bytes at a time and converted
 * to host form by libelf (any class, any byte order): memory holds the
 * string table and the kept entries, never the whole section.
 */
static long
read_symbols(struct sym_elf *e, const struct sym_src *src, Elf *elf, const GElf_Shdr *sh,
	     const char *blob, size_t blob_size)
{
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t nsym = sh->sh_size / sh->sh_entsize, per, added = 0;
	bool wide = gelf_getclass(elf) == ELFCLASS64;
	static char raw[SYM_CHUNK];

	if (entsize == 0 || sh->sh_entsize != entsize)
		return -1;
	per = SYM_CHUNK / entsize;
	for (size_t first = 0; first < nsym; first += per) {
		size_t n = nsym - first < per ? nsym - first : per;
		Elf_Data in = { .d_buf = raw, .d_type = ELF_T_SYM, .d_size = n * entsize,
				.d_version = EV_CURRENT };
		Elf_Data out = in;

		if (!src_read(src, sh->sh_offset + first * entsize, n * entsize, raw) ||
		    gelf_xlatetom(elf, &out, &in, elf_getident(elf, NULL)[EI_DATA]) == NULL)
			return -1;
		for (size_t i = first == 0 ? 1 : 0; i < n; i++) {
			GElf_Sym sym;

			to_gelf(raw, i, wide, &sym);
			if (add_symbol(e, &sym, blob, blob_size))
				added++;
		}
	}
	return (long)added;
}

/* Append the function symbols of symbol section sh (linked string table
 * strsh) to e.  Returns the number added, -1 for a damaged file, -2 for a
 * table over the bounds (SYM_SECTION_MAX, SYM_STRTAB_MAX), refused
 * before anything is read. */
static long
add_symbols(struct sym_elf *e, const struct sym_src *src, Elf *elf,
	    const GElf_Shdr *sh, const GElf_Shdr *strsh)
{
	char *blob;
	size_t nsym, cap = e->list.n;	/* trimmed to n below, each time */
	struct sym_entry *grown;
	long added;

	if (sh->sh_entsize == 0 || sh->sh_offset > src->size ||
	    sh->sh_size > src->size - sh->sh_offset)
		return -1;
	if (sh->sh_size > SYM_SECTION_MAX || strsh->sh_size > SYM_STRTAB_MAX)
		return -2;
	/* an entry size beyond the table: no symbols (and nothing to grow) */
	if ((nsym = sh->sh_size / sh->sh_entsize) == 0)
		return 0;
	if ((blob = read_strtab(src, strsh)) == NULL)
		return -1;
	if (array_reserve(&e->list.syms, &cap, e->list.n + nsym) < 0 ||
	    !add_blob(e, blob, strsh->sh_size + 1)) {
		free(blob);
		return -1;
	}
	added = read_symbols(e, src, elf, sh, blob, strsh->sh_size);
	/* only what was kept: a table is mostly not functions */
	if (e->list.n > 0 && (grown = realloc(e->list.syms, e->list.n * sizeof(*grown))) != NULL)
		e->list.syms = grown;
	return added;
}

/*
 * A symbol without a size (hand-written assembly, _init and _fini) covers
 * up to the next symbol, but never past its section: without a bound,
 * _init would name the whole .plt after .init, and the last function of
 * .text everything up to .fini.  So the end of each code section is an
 * entry with no name, which ends such a symbol's reach (sym_list_find
 * gives -1 there).  At an address a symbol starts at, the symbol wins.
 */
static void
add_section_ends(struct sym_elf *e, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t n = 0, k = 0;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size > 0)
			n++;
	if (n == 0 || array_resize(&e->list.syms, e->list.n + n) < 0)
		return;		/* no bound: as before, to the next symbol */
	while ((scn = elf_nextscn(elf, scn)) != NULL && k < n)
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size > 0 &&
		    sh.sh_addr + sh.sh_size > sh.sh_addr) {
			e->list.syms[e->list.n++] = (struct sym_entry){
				.addr = sh.sh_addr + sh.sh_size, .name = NULL, .size = 0, .rank = 0,
			};
			k++;
		}
}

static bool
read_layout(struct sym_elf *e, Elf *elf)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n) != 0 || n > 4096)
		return false;
	e->loads = calloc(n ? n : 1, sizeof(*e->loads));
	if (e->loads == NULL)
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, i, &ph) == NULL || ph.p_type != PT_LOAD)
			continue;
		e->loads[e->nloads++] = (struct sym_load){
			.offset = ph.p_offset, .vaddr = ph.p_vaddr, .filesz = ph.p_filesz,
		};
	}
	return true;
}

static void
read_build_id(Elf_Scn *scn, const GElf_Shdr *sh, struct sym_elf_info *info)
{
	/* libelf reads a whole section to hand out its data */
	Elf_Data *data = sh->sh_size <= SYM_SMALL_SECTION_MAX ? elf_getdata(scn, NULL) : NULL;
	size_t off = 0, next;
	GElf_Nhdr nh;
	size_t name_off, desc_off;

	while (data && (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= sizeof(info->build_id)) {
			memcpy(info->build_id, (char *)data->d_buf + desc_off, nh.n_descsz);
			info->build_id_len = nh.n_descsz;
			return;
		}
		off = next;
	}
}

static void
read_debuglink(const struct sym_src *src, const GElf_Shdr *sh, struct sym_elf_info *info)
{
	char buf[sizeof(info->debuglink) + 8];
	size_t len, crc_off;

	if (sh->sh_size < 6 || sh->sh_size > sizeof(buf) ||
	    !src_read(src, sh->sh_offset, sh->sh_size, buf))
		return;
	len = strnlen(buf, sh->sh_size);
	crc_off = (len + 4) & ~(size_t)3;	/* name, NUL, pad to 4 */
	if (len == 0 || len >= sizeof(info->debuglink) || crc_off + 4 > sh->sh_size ||
	    memchr(buf, '/', len) != NULL)	/* a file name, never a path */
		return;
	memcpy(info->debuglink, buf, len + 1);
	memcpy(&info->debuglink_crc, buf + crc_off, 4);
}

/* Walk the sections once: notes, debug links, and the symbol tables.
 * Section names only from a name table libelf may read whole. */
static void
scan_sections(Elf *elf, const struct sym_src *src, size_t shstrndx,
	      struct sym_elf_info *info, Elf_Scn **symtab, Elf_Scn **dynsym)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr namesh;
	bool names = gelf_getshdr(elf_getscn(elf, shstrndx), &namesh) != NULL &&
		     namesh.sh_size <= SYM_SMALL_SECTION_MAX;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		name = names ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (sh.sh_type == SHT_SYMTAB && sh.sh_size > 0) {
			*symtab = scn;
			info->has_symtab = true;
		} else if (sh.sh_type == SHT_DYNSYM && sh.sh_size > 0) {
			*dynsym = scn;
			info->has_dynsym = true;
		} else if (sh.sh_type == SHT_NOTE && info->build_id_len == 0) {
			read_build_id(scn, &sh, info);
		} else if (name && strcmp(name, ".gnu_debuglink") == 0) {
			read_debuglink(src, &sh, info);
		} else if (name && strcmp(name, ".gnu_debugdata") == 0 &&
			   sh.sh_type == SHT_PROGBITS && sh.sh_offset <= src->size &&
			   sh.sh_size <= src->size - sh.sh_offset) {
			info->debugdata_off = sh.sh_offset;
			info->debugdata_size = sh.sh_size;
		}
	}
}

long
sym_elf_parse(struct sym_elf *e, const struct sym_src *src,
	      struct sym_elf_info *info, enum sym_pick pick_table, bool want_layout)
{
	Elf *elf;
	Elf_Scn *symtab = NULL, *dynsym = NULL, *pick;
	size_t shstrndx;
	GElf_Ehdr eh;
	GElf_Shdr sh, strsh;
	long ret = -1;

	memset(info, 0, sizeof(*info));
	if (!section_count_ok(src)) {
		e->refused++;
		return -1;
	}
	if ((elf = src_open(src)) == NULL)
		return -1;
	if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &eh) == NULL ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0)
		goto out;
	if (want_layout && !read_layout(e, elf))
		goto out;
	scan_sections(elf, src, shstrndx, info, &symtab, &dynsym);
	pick = pick_table == SYM_PICK_SYMTAB ? symtab :
	       pick_table == SYM_PICK_DYNSYM ? dynsym : NULL;
	ret = 0;
	if (pick && gelf_getshdr(pick, &sh) != NULL &&
	    gelf_getshdr(elf_getscn(elf, sh.sh_link), &strsh) != NULL)
		ret = add_symbols(e, src, elf, &sh, &strsh);
	if (ret > 0)
		add_section_ends(e, elf);
	if (ret == -2) {
		e->refused++;		/* over the bounds: as if it had none */
		ret = 0;
	}
out:
	elf_end(elf);
	return ret;
}

bool
sym_elf_offset_to_vaddr(const struct sym_elf *e, uint64_t off, uint64_t *vaddr)
{
	for (int i = 0; i < e->nloads; i++) {
		const struct sym_load *l = &e->loads[i];
		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = l->vaddr + (off - l->offset);
			return true;
		}
	}
	return false;
}

void
sym_elf_account(struct sym_elf *e)
{
	size_t b = sizeof(*e) + e->list.n * sizeof(struct sym_entry) +
		   e->nloads * sizeof(struct sym_load) + e->list.pretty_bytes;

	e->bytes = b + e->blob_bytes;
}

/* Symbols of a debug file replace the table's; its layout (from the
 * mapped file itself) stays. */
void
sym_elf_take_symbols(struct sym_elf *e, struct sym_elf *got, enum sym_source source)
{
	struct sym_list l = e->list;
	char **blobs = e->blobs;
	int nblobs = e->nblobs;
	size_t blob_bytes = e->blob_bytes;

	e->list = got->list;
	e->blobs = got->blobs;
	e->nblobs = got->nblobs;
	e->blob_bytes = got->blob_bytes;
	got->list = l;
	got->blobs = blobs;
	got->nblobs = nblobs;
	got->blob_bytes = blob_bytes;
	e->source = source;
	sym_elf_account(e);
	sym_elf_free(got);
}

static struct sym_elf *
sym_elf_new(void)
{
	static bool version_set;
	struct sym_elf *e;

	if (!version_set) {
		elf_version(EV_CURRENT);
		version_set = true;
	}
	e = calloc(1, sizeof(*e));
	if (e)
		e->list.elf_names = true;
	return e;
}

struct sym_elf *
sym_elf_empty(void)
{
	struct sym_elf *e = sym_elf_new();

	if (e)
		sym_elf_account(e);
	return e;
}

struct sym_elf *
sym_elf_load_mem(const char *image, size_t size)
{
	struct sym_elf *e = sym_elf_new();
	struct sym_elf_info info;
	struct sym_src src = { .fd = -1, .mem = image, .size = size };

	if (e == NULL || sym_elf_parse(e, &src, &info, SYM_PICK_SYMTAB, true) < 0 ||
	    (!info.has_symtab && sym_elf_parse(e, &src, &info, SYM_PICK_DYNSYM, false) < 0)) {
		sym_elf_free(e);
		return NULL;
	}
	e->source = info.has_symtab ? SYM_SRC_SYMTAB : info.has_dynsym ? SYM_SRC_DYNSYM : SYM_SRC_NONE;
	sym_list_sort(&e->list);
	sym_elf_account(e);
	return e;
}

void
sym_elf_free(struct sym_elf *e)
{
	if (e == NULL)
		return;
	sym_elf_free(e->debug_pending);
	sym_list_free(&e->list);
	for (int i = 0; i < e->nblobs; i++)
		free(e->blobs[i]);
	free(e->blobs);
	free(e->loads);
	free(e);
}
