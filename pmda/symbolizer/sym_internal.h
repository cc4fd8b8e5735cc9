/*
 * sym_internal.h - the parts of the symbolizer (every .c file of pmda/symbolizer)
 * talk to each other through this header; the PMDA sees only symbolize.h.
 *
 *   sym_kernel.c    /proc/kallsyms, module symbols included
 *   sym_elf.c       one ELF file -> sorted function table + PT_LOAD layout
 *   sym_file.c      a mapped file's symbols from its best source
 *   sym_debug.c     separate debug files: build-id, .gnu_debuglink, MiniDebugInfo
 *   sym_cache.c     ELF tables shared across processes, LRU by bytes
 *   sym_proc.c      /proc/PID/maps -> process entries keyed by (pid, start time)
 *   sym_perfmap.c   /tmp/perf-PID.map of JIT runtimes
 *   sym_vdso.c      the [vdso] image of a process
 *   sym_demangle.c  C++ and Rust (legacy, v0) names through libiberty
 *   sym_debuginfod*.c  debug files fetched by build-id (sym_debuginfod_priv.h)
 */
#ifndef SYM_INTERNAL_H
#define SYM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "symbolize.h"

/* ---- one function symbol ---- */
struct sym_entry {
	uint64_t	addr;		/* st_value (link-time virtual address) */
	const char	*name;		/* raw (mangled) name, in a table blob;
					 * NULL: the end of a code section */
	uint32_t	size;		/* 0: extends to the next entry */
	uint32_t	rank;		/* for aliases at one address: keep the best */
};

/* Sorted, de-duplicated function symbols with lazily demangled names. */
struct sym_list {
	struct sym_entry *syms;
	size_t		n;
	char		**pretty;	/* demangled + sanitized, filled on first use */
	size_t		pretty_n;	/* entries pretty was made for */
	bool		elf_names;	/* ELF symbols: "name@VERSION" loses "@VERSION" */
	size_t		pretty_bytes;
};

void sym_list_sort(struct sym_list *l);
/* Index of the symbol covering addr, or -1. */
long sym_list_find(const struct sym_list *l, uint64_t addr);
/* Display name of symbol i (demangled, sanitized); cached after first call. */
const char *sym_list_name(struct sym_list *l, long i);
/* Forget the display names (before the entries change). */
void sym_list_forget_names(struct sym_list *l);
void sym_list_free(struct sym_list *l);

/* ---- one ELF file's symbols and layout ---- */
/*
 * Bounds on what one file may cost (docs/design.md, "Bounds"): a symbol
 * section (.symtab, .dynsym) of more than SYM_SECTION_MAX bytes (524288
 * 64-bit symbols: libLLVM has 258k) or a string table over SYM_STRTAB_MAX
 * is refused unread and counted, as if the file had none (the next source
 * is tried: .dynsym, debug files).  At the bounds a table loads in ~60 ms
 * and holds < 30 MB; a 1 GB .symtab took 4 s and 1 GB before.
 */
#define SYM_SECTION_MAX		(12u << 20)
#define SYM_STRTAB_MAX		(16u << 20)
#define SYM_CHUNK		(64u << 10)	/* symbols are read this much at a time */
#define SYM_SECTIONS_MAX	65535		/* sections in one file */
#define SYM_SMALL_SECTION_MAX	(1u << 20)	/* notes, section names: read whole */
struct sym_load {			/* a PT_LOAD segment */
	uint64_t	offset, vaddr, filesz;
};

enum sym_source {			/* where a table's symbols came from */
	SYM_SRC_NONE = 0,
	SYM_SRC_SYMTAB,			/* the file's own .symtab */
	SYM_SRC_DYNSYM,			/* only .dynsym */
	SYM_SRC_BUILDID,		/* /usr/lib/debug/.build-id/xx/rest.debug */
	SYM_SRC_DEBUGLINK,		/* .gnu_debuglink, CRC checked */
	SYM_SRC_MINIDEBUG,		/* .gnu_debugdata (xz) + .dynsym */
	SYM_SRC_DEBUGINFOD,		/* a debug file a debuginfod server sent */
};

#define SYM_BUILD_ID_MAX	64

/*
 * What tells apart two files that had one (device, inode): a deleted
 * file's inode reused by a new one, or a file rewritten in place.  Both
 * set the ctime, which user space cannot set back (mtime and size it can,
 * e.g. cp -p, tar, dpkg).
 */
struct sym_stamp {
	int64_t		ctime_ns, mtime_ns, size;
};

struct sym_elf {
	struct sym_list	list;
	struct sym_load	*loads;
	int		nloads;
	enum sym_source	source;
	unsigned	debug_mismatches;	/* debug files refused while loading it */
	unsigned	refused;	/* tables over the bounds it met (SYM_*_MAX) */
	char		**blobs;	/* string tables the entries point into */
	int		nblobs;
	size_t		blobcap;
	size_t		blob_bytes;
	size_t		bytes;		/* memory held, for the cache budget */
	uint8_t		build_id[SYM_BUILD_ID_MAX];
	int		build_id_len;	/* 0: none (or not a file) */
	/* debuginfod (symbolize.c, sym_debuginfod.c) */
	bool		dfd_wait;	/* asked for; symbols may come at a collect */
	unsigned	dfd_gen;	/* generation it last asked in */
	/* a debug file installed after it was loaded (sym_debug.c) */
	unsigned	debug_gen;	/* generation it was last looked for */
	struct sym_elf	*debug_pending;	/* its symbols, taken at the next collect */
	/* cache linkage (sym_cache.c) */
	dev_t		dev;
	ino_t		ino;
	struct sym_stamp stamp;		/* of the file it was read from */
	int		refs;
	uint64_t	used_ns;	/* last sweep that found it referenced */
	struct sym_elf	*hnext, *lru_prev, *lru_next;
};

/* What sym_elf_parse learns about a file besides its symbols. */
struct sym_elf_info {
	uint8_t		build_id[SYM_BUILD_ID_MAX];
	int		build_id_len;
	char		debuglink[256];	/* empty when none */
	uint32_t	debuglink_crc;
	uint64_t	debugdata_off, debugdata_size;	/* .gnu_debugdata */
	bool		has_symtab, has_dynsym;
};

/* Where a file's bytes come from: an open fd or a memory image. */
struct sym_src {
	int		fd;		/* -1 for memory */
	const char	*mem;
	size_t		size;
};

enum sym_pick { SYM_PICK_NONE, SYM_PICK_SYMTAB, SYM_PICK_DYNSYM };

/*
 * Parse the ELF in src: notes into info, the PT_LOAD layout into e when
 * want_layout, and the function symbols of the picked table appended to e.
 * Returns the number of symbols added (0 when the table is absent), or -1
 * when src is not an ELF we can read.
 */
long sym_elf_parse(struct sym_elf *e, const struct sym_src *src,
		   struct sym_elf_info *info, enum sym_pick pick, bool want_layout);
/* sym_file.c: load fd's symbols, going to separate debug files when it is
 * stripped.  root is "/proc/PID/root" (or "" for our own namespace).  NULL
 * on error. */
struct sym_elf *sym_elf_load(int fd, const char *root, const char *path);
struct sym_elf *sym_elf_load_mem(const char *image, size_t size);
/* A table with no symbols and no layout: what an unreadable file is cached as. */
struct sym_elf *sym_elf_empty(void);
void sym_elf_free(struct sym_elf *e);
/* Link-time virtual address of file offset off, or false when no segment holds it. */
bool sym_elf_offset_to_vaddr(const struct sym_elf *e, uint64_t off, uint64_t *vaddr);
void sym_elf_account(struct sym_elf *e);
/* The symbols of got (a table of the same file's debug symbols) replace
 * e's; e keeps its layout.  got is freed. */
void sym_elf_take_symbols(struct sym_elf *e, struct sym_elf *got, enum sym_source source);

/* ---- separate debug information (sym_debug.c) ---- */
/* Symbols of the separate debug file of a stripped file (build-id first,
 * then .gnu_debuglink with its CRC checked), looked up under root.  Returns
 * the source used, or SYM_SRC_NONE with e unchanged. */
enum sym_source sym_debug_find_file(struct sym_elf *e, const struct sym_elf_info *info,
				    const char *root, const char *path);
/* Append the symbols of src's MiniDebugInfo.  Returns the number added. */
long sym_debug_minidebug(struct sym_elf *e, const struct sym_src *src,
			 const struct sym_elf_info *info);
/*
 * A frame of e could not be named: if e has no debug symbols, look again
 * for a debug file under root by its build-id (a -dbgsym package installed
 * while the program runs), at most once per generation gen.  Found, its
 * symbols wait in e->debug_pending for sym_debug_apply, so that names
 * change between drains only.
 */
struct sym_cache;
void sym_debug_note_miss(struct sym_elf *e, const char *root, unsigned gen);
/* Between drains: waiting tables take their debug files' symbols.
 * Returns how many changed. */
size_t sym_debug_apply(struct sym_cache *c);
/* CRC-32 of the whole file, as .gnu_debuglink stores it. */
bool sym_debug_crc32(int fd, uint32_t *crc);

/* ---- demangling (sym_demangle.c) ---- */
/* Demangled copy of name (malloc'd), or NULL when it is not mangled. */
char *sym_demangle(const char *name);

/* ---- kernel (sym_kernel.c) ---- */
struct sym_kernel;
/* Kernel symbols read from the start of fd (a /proc/kallsyms descriptor,
 * kept open: see sym_kernel.c); NULL when none could be read. */
struct sym_kernel *sym_kernel_load(int fd);
void sym_kernel_free(struct sym_kernel *k);
/* Name of the kernel function at ip, or NULL. */
const char *sym_kernel_find(struct sym_kernel *k, uint64_t ip);
size_t sym_kernel_count(const struct sym_kernel *k);
size_t sym_kernel_bytes(const struct sym_kernel *k);

/* ---- ELF cache (sym_cache.c) ---- */
struct sym_cache;
struct sym_cache *sym_cache_new(void);
void sym_cache_free(struct sym_cache *c);
/* A referenced table for (dev, ino) read from a file with this stamp, or
 * NULL (not cached).  stamp NULL: the newest table for (dev, ino), when the
 * file cannot be looked at any more. */
struct sym_elf *sym_cache_get(struct sym_cache *c, dev_t dev, ino_t ino,
			      const struct sym_stamp *stamp);
/* Insert e (takes one reference for the caller too). */
void sym_cache_put(struct sym_cache *c, struct sym_elf *e);
void sym_cache_unref(struct sym_cache *c, struct sym_elf *e);
/* Evict unreferenced tables, least recently used first, down to limit bytes.
 * Returns the bytes still held. */
size_t sym_cache_trim(struct sym_cache *c, size_t limit, uint64_t *evictions);
size_t sym_cache_bytes(const struct sym_cache *c);
/* Every cached table, newest first: e = NULL gives the first; NULL at the end. */
struct sym_elf *sym_cache_next(struct sym_cache *c, struct sym_elf *e);
/* Remove unreferenced tables not referenced at any sweep in the last
 * idle_ns; returns how many went. */
size_t sym_cache_expire(struct sym_cache *c, uint64_t now_ns, uint64_t idle_ns,
			uint64_t *evictions);

/* ---- processes (sym_proc.c) ---- */
enum sym_map_kind {
	SYM_MAP_FILE,			/* a regular file */
	SYM_MAP_VDSO,			/* [vdso] */
	SYM_MAP_ANON,			/* anonymous executable memory (JIT) */
	SYM_MAP_MEMFD,			/* /memfd:NAME */
	SYM_MAP_SPECIAL,		/* [vsyscall], [heap], other [names] */
};

struct sym_map {			/* one executable mapping */
	uint64_t	start, end, pgoff;
	dev_t		dev;
	ino_t		ino;
	char		*path;		/* as the process sees it, without " (deleted)" */
	enum sym_map_kind kind;
	bool		deleted;	/* the path no longer names this file */
	bool		is_exe;		/* the process's main executable */
	bool		tried;		/* symbols looked for (elf may still be NULL) */
	struct sym_elf	*elf;
};

struct sym_perfmap;

/* The executable mappings of pid, sorted by start (sym_maps.c): *maps is
 * malloc'd, paths too.  false when /proc/PID/maps cannot be opened;
 * *truncated when a bound cut the list. */
bool sym_maps_read(pid_t pid, struct sym_map **maps, size_t *n, bool *truncated);
extern size_t sym_maps_lines_max;	/* lines of the text read (65536; tests) */

/*
 * Which program image a PID runs.  The start time tells a reused PID apart,
 * but exec keeps it; start_code and start_stack (randomized at every exec)
 * tell one exec from the next.
 */
struct sym_ident {
	uint64_t	start_time;	/* /proc/PID/stat field 22 */
	uint64_t	start_code;	/* field 26 */
	uint64_t	start_stack;	/* field 28 */
};

struct sym_proc {
	pid_t		pid;
	struct sym_ident id;
	unsigned	checked_gen;	/* generation id was last confirmed */
	unsigned	used_gen;	/* generation it was last looked up in */
	pid_t		nspid;		/* the pid inside its own namespace */
	struct sym_map	*maps;		/* sorted by start, as /proc/PID/maps is */
	size_t		nmaps;
	unsigned	maps_gen;	/* symbolizer generation of the last read */
	unsigned	dead_gen;	/* generation it was found gone, 0 = alive */
	bool		lost;		/* /proc/PID was gone when first seen */
	struct sym_perfmap *perfmap;
	struct sym_python *python;	/* CPython found and checked (sym_python.c) */
	size_t		bytes;
	struct sym_proc	*hnext, *lru_prev, *lru_next;
};

struct sym_counters;
struct sym_procs;
struct sym_procs *sym_procs_new(void);
void sym_procs_free(struct sym_procs *ps, struct sym_cache *c);
/* The cached entry of pid (refreshed to the LRU head), or NULL. */
struct sym_proc *sym_procs_get(struct sym_procs *ps, pid_t pid);
/* Read /proc/PID afresh into a new entry (replacing any old one).  Returns
 * the entry, which is marked lost when /proc/PID could not be read. */
struct sym_proc *sym_procs_capture(struct sym_procs *ps, struct sym_cache *c,
				   pid_t pid, unsigned gen);
/* Re-read the maps of p (a dlopen since the last read); false when gone. */
bool sym_procs_reread(struct sym_procs *ps, struct sym_cache *c, struct sym_proc *p,
		      unsigned gen);
struct sym_map *sym_proc_find_map(const struct sym_proc *p, uint64_t ip);
/* The executable mappings in f (the text of a /proc/PID/maps), in file
 * order, into *maps (malloc'd; each path too), marked against exe as
 * sym_maps_mark_exe does.  Returns the count.  For
 * qa/fuzz/pmda/fuzz_sym_proc.c: sym_maps_read parses the same way. */
struct stat;
void sym_maps_mark_exe(struct sym_map *maps, size_t n, const struct stat *exe);
size_t sym_maps_parse(FILE *f, const struct stat *exe, struct sym_map **maps);
/* Open the file behind mapping m of p as p sees it: an fd, or -1. */
int sym_proc_open_map(const struct sym_proc *p, const struct sym_map *m);
/* The symbol table of file mapping m, loading it once (NULL when unreadable). */
struct sym_elf *sym_proc_map_elf(struct sym_proc *p, struct sym_map *m,
				 struct sym_cache *c, struct sym_counters *cnt);
/* Memory p holds changed (perf map, vDSO image). */
void sym_procs_add_bytes(struct sym_procs *ps, struct sym_proc *p, ssize_t delta);
/* Read the identity of pid's current image; false when it is gone. */
bool sym_proc_ident(pid_t pid, struct sym_ident *id);
bool sym_ident_equal(const struct sym_ident *a, const struct sym_ident *b);
/* Drop p and release its tables. */
void sym_procs_drop(struct sym_procs *ps, struct sym_cache *c, struct sym_proc *p);
/* Entries from least to most recently used, for collection and eviction. */
struct sym_proc *sym_procs_oldest(struct sym_procs *ps);
struct sym_proc *sym_procs_newer(struct sym_procs *ps, struct sym_proc *p);
size_t sym_procs_bytes(const struct sym_procs *ps);
size_t sym_procs_count(const struct sym_procs *ps);
/* Maps reads cut at their line bound so far. */
uint64_t sym_procs_truncated(const struct sym_procs *ps);

/* ---- vDSO (sym_vdso.c) ---- */
/* A malloc'd copy of pid's [vdso] image at [start, end), or ours when it
 * has the same size; NULL when neither can be had. */
char *sym_vdso_image(pid_t pid, uint64_t start, uint64_t end);
/* The (cached, referenced) table of the [vdso] at [start, end) in pid. */
struct sym_elf *sym_vdso_load(pid_t pid, uint64_t start, uint64_t end,
			      struct sym_cache *c, struct sym_counters *cnt);

/* ---- JIT perf maps (sym_perfmap.c) ---- */
/* Name of ip from /tmp/perf-NSPID.map of p, re-reading the map when it grew
 * (checked at most once per generation).  NULL when unknown. */
const char *sym_perfmap_find(struct sym_proc *p, uint64_t ip, unsigned gen,
			     bool may_grow, struct sym_counters *cnt);
void sym_perfmap_free(struct sym_perfmap *pm);
size_t sym_perfmap_bytes(const struct sym_perfmap *pm);

/* ---- debuginfod (sym_debuginfod*.c) ---- */
struct sym_debuginfod;
struct symbolizer_debuginfod_config;
/* A client with its cache directory ready and no thread yet; NULL with
 * *err = -errno. */
struct sym_debuginfod *sym_debuginfod_new(const struct symbolizer_debuginfod_config *cfg,
					  int *err);
/* Cancels what runs and waits for the threads. */
void sym_debuginfod_free(struct sym_debuginfod *d);
int sym_debuginfod_set_urls(struct sym_debuginfod *d, const char *urls);
/* A frame of e could not be named: ask for e's debug file if e is a
 * stripped file with a build-id (at most once per table per generation). */
void sym_debuginfod_note_miss(struct sym_debuginfod *d, struct sym_elf *e, unsigned gen);
/* Between drains: give waiting tables the symbols that arrived.  Returns
 * how many tables changed. */
size_t sym_debuginfod_apply(struct sym_debuginfod *d, struct sym_cache *c);
void sym_debuginfod_stats(struct sym_debuginfod *d, struct symbolizer_stats *st);

/* CLOCK_MONOTONIC in ns (symbolize.c). */

/* ---- counters shared by all parts ---- */
struct sym_counters {
	uint64_t	kernel_lookups, user_lookups, misses, lost_processes;
	uint64_t	cache_hits, cache_misses, cache_evictions;
	uint64_t	elf_errors;		/* unreadable / corrupt ELF files */
	uint64_t	debug_mismatches;	/* debug file with wrong CRC / build-id */
	uint64_t	perfmap_bad_lines;	/* perf map lines we could not parse */
	uint64_t	proc_errors;		/* unreadable /proc entries */
	/* inputs refused by a bound (docs/design.md, "Bounds") */
	uint64_t	elf_refused;		/* symbol tables, MiniDebugInfo */
	uint64_t	perfmap_refused;	/* perf map reads cut short */
	uint64_t	budget_refused;		/* tables not loaded: cache far over */
};

#endif /* SYM_INTERNAL_H */
