/*
 * sym_python.c - is this process CPython, and can the walker read it
 * safely?  The answer comes from what the binary exports (_PyRuntime,
 * _PyEval_EvalFrameDefault and its size, PyCode_Type, PyUnicode_Type,
 * Py_Version from 3.11 on: a main executable or a mapped
 * libpython3.X.so) and what the live process holds, checked before
 * anything is handed to BPF:
 *
 * - the version: Py_Version, else (3.9, 3.10) the file's name
 *   (python3.X, libpython3.X.so), else each of 3.9 and 3.10 is tried and
 *   the one the checks below pass is taken; it must be one
 *   sym_python_offsets.c has; from 3.13 on, _PyRuntime.debug_offsets
 *   gives most offsets, and must say the same version;
 * - PyCode_Type's own member table gives co_filename, co_name,
 *   co_qualname (3.11+), co_firstlineno and the line table at the
 *   table's offsets;
 * - the main interpreter's first thread state points back at it, and its
 *   pthread_self() (thread_id: the TLS base on x86-64) plus the TLS
 *   offset we derive leads back to that same thread state; its current
 *   frame, if any, holds a code object (ob_type == PyCode_Type).
 *
 * The TLS offset: every version keeps each thread's state in the pthread
 * key autoTSSkey of _PyRuntime (a Py_tss_t {1, key}, whose place in the
 * runtime moves from version to version: it is looked for there, and
 * only a key whose slot holds that thread state is taken), and glibc
 * keeps keys below 32 in struct pthread's specific_1stblock, {seq, data}
 * pairs.  Where that block starts we measure in our own thread (the same
 * glibc, normally; the check above catches another).  Any failure:
 * -ENOTSUP, counted, and the process keeps its native stacks.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sym_internal.h"
#include "sym_python.h"

#define TSS_KEYS_1ST	32		/* glibc PTHREAD_KEY_2NDLEVEL_SIZE */
#define TSS_SCAN	4096		/* bytes of struct pthread searched */
#define RUNTIME_SCAN	16384		/* bytes of _PyRuntime searched for autoTSSkey */

static bool
read_u64(pid_t pid, uint64_t addr, uint64_t *v)
{
	return sym_python_read(pid, addr, v, sizeof(*v));
}

/* Offset of specific_1stblock in our struct pthread; -1 when not found. */
static long
measure_tss_block(void)
{
	static long found = -2;
	pthread_key_t key;
	const uint64_t *self;
	void *mark = (void *)&found;

	if (found != -2)
		return found;
	found = -1;
	if (pthread_key_create(&key, NULL) != 0)
		return found;
	if (key < TSS_KEYS_1ST && pthread_setspecific(key, mark) == 0) {
		self = (const uint64_t *)pthread_self();
		for (size_t i = 1; i < TSS_SCAN / 8; i += 2)
			if (self[i] == (uint64_t)(uintptr_t)mark) {
				long off = (long)(i * 8) - (long)key * 16 - 8;

				if (off >= 0)
					found = off;
				break;
			}
	}
	pthread_key_delete(key);
	return found;
}

struct exports {
	uint64_t	runtime, runtime_size, eval, eval_size, version, code_type, unicode_type;
	int		have;
};
#define HAVE_VERSION	0x4
#define HAVE_NEEDED	0x1b	/* all but Py_Version (3.11+) */

/* The dynamic symbols we need from the file behind fd, link-time values. */
static bool
read_exports(int fd, struct exports *x)
{
	static const char *const names[] = {
		"_PyRuntime", "_PyEval_EvalFrameDefault", "Py_Version",
		"PyCode_Type", "PyUnicode_Type",
	};
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	memset(x, 0, sizeof(*x));
	if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)))
		return false;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || sh.sh_entsize == 0 ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n && x->have != (HAVE_NEEDED | HAVE_VERSION); i++) {
			GElf_Sym s;
			const char *nm;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    !(nm = elf_strptr(elf, sh.sh_link, s.st_name)))
				continue;
			for (int k = 0; k < 5; k++) {
				if (strcmp(nm, names[k]) != 0)
					continue;
				uint64_t *slot[] = { &x->runtime, &x->eval, &x->version,
						     &x->code_type, &x->unicode_type };
				*slot[k] = s.st_value;
				if (k == 0)
					x->runtime_size = s.st_size;
				if (k == 1)
					x->eval_size = s.st_size;
				x->have |= 1 << k;
			}
		}
	}
	elf_end(elf);
	return (x->have & HAVE_NEEDED) == HAVE_NEEDED && x->eval_size > 0;
}

/* 3.MINOR from a file name python3.MINOR... or libpython3.MINOR...; 0 if none. */
static unsigned
name_minor(const char *path)
{
	const char *base = strrchr(path, '/'), *p;
	unsigned minor = 0;

	base = base ? base + 1 : path;
	if (!(p = strstr(base, "python3.")))
		return 0;
	for (p += 8; *p >= '0' && *p <= '9' && minor < 100; p++)
		minor = minor * 10 + (unsigned)(*p - '0');
	return minor;
}

/* The load bias of mapping m: its runtime address minus its link-time one. */
static bool
mapping_bias(int fd, const struct sym_map *m, uint64_t *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t n = 0;
	bool ok = false;

	if (!elf || elf_getphdrnum(elf, &n) != 0)
		goto out;
	for (size_t i = 0; i < n && !ok; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    m->pgoff < (ph.p_offset & ~0xfffULL) || m->pgoff >= ph.p_offset + ph.p_filesz)
			continue;
		*bias = m->start - m->pgoff - (ph.p_vaddr - ph.p_offset);
		ok = true;
	}
out:
	if (elf)
		elf_end(elf);
	return ok;
}

static bool
python_file(const struct sym_map *m)
{
	const char *base;

	if (m->kind != SYM_MAP_FILE || !m->path)
		return false;
	base = strrchr(m->path, '/');
	base = base ? base + 1 : m->path;
	return m->is_exe ? strstr(base, "python") != NULL : strncmp(base, "libpython3.", 11) == 0;
}

/* The member table's offset for name, or -1. */
static long
member_offset(pid_t pid, uint64_t members, const char *name)
{
	for (int i = 0; i < 64; i++) {
		uint8_t def[PY_MEMBERDEF_SIZE];
		uint64_t nm, off;
		char text[32];

		if (!sym_python_read(pid, members + (uint64_t)i * PY_MEMBERDEF_SIZE, def, sizeof(def)))
			return -1;
		memcpy(&nm, def, 8);
		memcpy(&off, def + PY_MEMBERDEF_OFFSET, 8);
		if (nm == 0)
			return -1;
		if (!sym_python_read(pid, nm, text, sizeof(text)))
			continue;
		text[sizeof(text) - 1] = '\0';
		if (strcmp(text, name) == 0)
			return (long)off;
	}
	return -1;
}

static bool
members_agree(pid_t pid, const struct sym_python_layout *L, uint64_t code_type)
{
	uint64_t members;

	return read_u64(pid, code_type + L->type_members, &members) && members &&
	       member_offset(pid, members, "co_filename") == L->code_filename &&
	       member_offset(pid, members, "co_name") == L->code_name &&
	       (!L->has_qualname || member_offset(pid, members, "co_qualname") == L->code_qualname) &&
	       member_offset(pid, members, "co_firstlineno") == L->code_firstlineno &&
	       member_offset(pid, members, L->linetable_member) == L->code_linetable;
}

/* The TLS offset of the thread state ts of the thread at TLS base self:
 * the one autoTSSkey in runtime[0, n) whose slot holds ts; -ENOTSUP when
 * two hold it, -EAGAIN when none does yet: the newest thread state is made
 * before its thread binds it, so a process starting a thread looks so for
 * a moment, and a permanent no would lose its Python frames for good. */
static int64_t
find_tls(pid_t pid, const uint8_t *runtime, size_t n, uint64_t self, uint64_t ts, long block)
{
	uint32_t keys = 0;
	int64_t tls = -1;

	for (size_t off = 0; off + 8 <= n; off += 4) {
		uint32_t init, key;

		memcpy(&init, runtime + off, 4);
		memcpy(&key, runtime + off + 4, 4);
		if (init == 1 && key < TSS_KEYS_1ST)
			keys |= 1u << key;
	}
	for (unsigned k = 0; k < TSS_KEYS_1ST; k++) {
		int64_t off = block + (int64_t)k * 16 + 8;
		uint64_t slot;

		if (!(keys & (1u << k)) || !read_u64(pid, self + (uint64_t)off, &slot) || slot != ts)
			continue;
		if (tls >= 0)
			return -ENOTSUP;	/* two keys hold it: not sure which */
		tls = off;
	}
	return tls >= 0 ? tls : -EAGAIN;
}

/* The main interpreter's newest thread state leads back to itself through
 * the TLS path (its offset into *tls) and its frame, if any, holds a code
 * object.  -EAGAIN while it has no thread state, or one not yet bound. */
static int
thread_path_agrees(pid_t pid, const struct sym_python_layout *L, uint64_t interp,
		   const uint8_t *runtime, size_t rn, uint64_t code_type, int64_t *tls)
{
	uint64_t ts, back, self, frame, code, type;
	long block = measure_tss_block();

	if (block < 0)
		return -ENOTSUP;
	if (!read_u64(pid, interp + L->interp_threads_head, &ts) || !ts)
		return -EAGAIN;
	if (!read_u64(pid, ts + L->tstate_interp, &back) || back != interp ||
	    !read_u64(pid, ts + L->tstate_thread_id, &self))
		return -ENOTSUP;
	if (!self)
		return -EAGAIN;		/* made, not yet bound to its thread */
	if ((*tls = find_tls(pid, runtime, rn, self, ts, block)) < 0)
		return (int)*tls;
	if (!read_u64(pid, ts + L->tstate_cframe, &frame))
		return -ENOTSUP;
	if (L->cframe_current != SP_PY_NO_CFRAME &&
	    (!frame || !read_u64(pid, frame + L->cframe_current, &frame)))
		return -ENOTSUP;
	if (frame == 0)		/* between calls: nothing more to check */
		return 0;
	return read_u64(pid, frame + L->frame_code, &code) &&
	       read_u64(pid, code + PY_OB_TYPE, &type) && type == code_type ? 0 : -ENOTSUP;
}

/* Every frame field the walk reads lies within what it reads. */
static bool
frame_fits(const struct sym_python_layout *L)
{
	return L->frame_code + 8 <= SP_PY_FRAME_READ && L->frame_previous + 8 <= SP_PY_FRAME_READ &&
	       L->frame_instr + 8 <= SP_PY_FRAME_READ && L->frame_entry < SP_PY_FRAME_READ &&
	       L->code_size <= PY_CODE_READ;
}

/* Check layout L against the process; 0 and *rec filled. */
static int
check_layout(struct sym_proc *p, const struct sym_python_layout *L, const struct exports *x,
	     uint64_t bias, const uint8_t *runtime, size_t rn, struct sp_python_proc *rec)
{
	uint64_t interp;
	int64_t tls = -1;
	int err;

	if (!frame_fits(L))
		return -ENOTSUP;
	/* Py_Initialize may still be running: not yet, rather than never */
	if (L->runtime_main_interp + 8u > rn)
		return -ENOTSUP;
	memcpy(&interp, runtime + L->runtime_main_interp, 8);
	if (!interp)
		return -EAGAIN;
	if (!members_agree(p->pid, L, x->code_type + bias))
		return -ENOTSUP;
	if ((err = thread_path_agrees(p->pid, L, interp, runtime, rn, x->code_type + bias, &tls)) < 0)
		return err;
	*rec = (struct sp_python_proc){
		.eval_start = x->eval + bias, .eval_end = x->eval + bias + x->eval_size,
		.interp = interp, .tstate_tls = tls,
		.tstate_interp = L->tstate_interp, .tstate_cframe = L->tstate_cframe,
		.cframe_current = L->cframe_current, .frame_code = L->frame_code,
		.frame_previous = L->frame_previous, .frame_instr = L->frame_instr,
		.frame_entry = L->frame_entry, .code_instr0 = L->code_instr0,
		.entry_kind = L->entry_kind, .instr_kind = L->instr_kind,
		.shim_owner = L->shim_owner,
	};
	return sym_python_attach(p, L, x->code_type + bias, x->unicode_type + bias);
}

static int
check_process(struct sym_proc *p, const struct sym_map *m, int fd, struct sp_python_proc *rec)
{
	static const unsigned before_311[] = { 9, 10 };
	struct exports x;
	struct sym_python_layout debug;
	const struct sym_python_layout *L;
	uint64_t bias;
	uint32_t version = 0;
	uint8_t *runtime;
	size_t rn;
	int err = -ENOTSUP;

	if (!read_exports(fd, &x))
		return -ENOENT;
	if (!mapping_bias(fd, m, &bias))
		return -ENOTSUP;
	if ((x.have & HAVE_VERSION) &&
	    !sym_python_read(p->pid, x.version + bias, &version, sizeof(version)))
		return -ESRCH;
	rn = x.runtime_size && x.runtime_size < RUNTIME_SCAN ? x.runtime_size : RUNTIME_SCAN;
	if (!(runtime = malloc(rn)))
		return -ENOMEM;
	if (!sym_python_read(p->pid, x.runtime + bias, runtime, rn)) {
		err = -ESRCH;
		goto out;
	}
	if (version) {
		if (!(L = sym_python_layout_for(version >> 24, (version >> 16) & 0xff)))
			goto out;
		if (L->debug_offsets) {
			if (sym_python_layout_debug(L, runtime, rn, version, &debug) < 0)
				goto out;
			L = &debug;
		}
		err = check_layout(p, L, &x, bias, runtime, rn, rec);
		goto out;
	}
	/* 3.9 or 3.10: the name says which, else the one that checks out */
	for (size_t i = 0; i < 2 && err != 0 && err != -EAGAIN; i++) {
		unsigned minor = name_minor(m->path);

		if (minor && minor != before_311[i])
			continue;
		if ((L = sym_python_layout_for(3, before_311[i])))
			err = check_layout(p, L, &x, bias, runtime, rn, rec);
	}
out:
	free(runtime);
	return err;
}

int
sym_python_detect(struct sym_proc *p, struct sp_python_proc *rec, struct symbolizer_python_stats *cnt)
{
	int err = -ENOENT;

	for (size_t i = 0; i < p->nmaps && err == -ENOENT; i++) {
		const struct sym_map *m = &p->maps[i];
		int fd;

		if (!python_file(m) || (fd = sym_proc_open_map(p, m)) < 0)
			continue;
		err = check_process(p, m, fd, rec);
		close(fd);
	}
	if (err == -ENOTSUP)
		cnt->unsupported++;
	else if (err == 0)
		cnt->processes++;
	return err;
}
