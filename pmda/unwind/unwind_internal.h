/*
 * unwind_internal.h - what the table cache's files share (unwind.h is the
 * public face):
 *
 *   unwind_cache.c    the cache: loading into the kernel, eviction, polls
 *   unwind_files.c    files by identity and by inode, their builds queued
 *   unwind_procs.c    processes: their mappings -> the kernel's arrays
 *   unwind_layout.c   a file's PT_LOAD layout (libelf); its identity is
 *                     unwind_file_id() of the compiler's files
 *   unwind_worker.c   the build thread and its queues
 *
 * The compiler's own files (cfi_*.c) share cfi_internal.h instead.
 */
#ifndef UNWIND_INTERNAL_H
#define UNWIND_INTERNAL_H

#include <pthread.h>
#include "unwind.h"
#include "unwind_table.h"
#include "lib/hash_chain.h"

/* ---- layout (unwind_layout.c) ---- */
struct uload {				/* a PT_LOAD segment */
	uint64_t	offset, vaddr, filesz;
	bool		exec;
};

struct ulayout {
	struct uload	*loads;
	int		nloads;
};

/* PT_LOAD layout of an ELF file or image; 0, or -1 when it is not an
 * x86-64 ELF we can read. */
int unwind_layout_fd(int fd, struct ulayout *l);
int unwind_layout_mem(const void *image, size_t len, struct ulayout *l);
/* The identity of an image (the vDSO): its build-id, else a hash of it. */
void unwind_image_id(const void *image, size_t len, char *id, size_t idlen);
/* pc -> link-time vaddr is pc - bias for the mapping [start, ...) at file
 * offset pgoff; false when no segment holds pgoff. */
bool unwind_mapping_bias(const struct ulayout *l, uint64_t start, uint64_t pgoff, uint64_t *bias);
void unwind_layout_free(struct ulayout *l);

/* ---- one file's table (unwind_files.c) ---- */
enum ufile_state {
	UF_DEFERRED,			/* seen in one drain only: built if seen in a second */
	UF_QUEUED,			/* handed to the worker */
	UF_LOADED,			/* in the kernel under kernel_id */
	UF_FAILED,			/* no table: bad CFI, too large */
	UF_EVICTED,			/* unloaded for room, or no room to load:
					 * built again after the back-off */
};

struct ufile {
	char		id[UNWIND_FILE_ID_LEN];	/* unwind_file_id() */
	struct ulayout	layout;
	enum ufile_state state;
	uint32_t	kernel_id;
	uint32_t	nrows;
	int		fd;		/* UF_DEFERRED: the file to build from */
	struct ujob	*job;		/* UF_QUEUED: the worker's, until it comes back */
	uint64_t	seen_drain;	/* the cache's drain count when first mapped */
	bool		dirty;		/* state changed: its processes need new arrays */
	bool		orphan;		/* forgotten while queued: free when built */
	bool		refused;	/* too large: kept, so never built again */
	int		refs;		/* mappings of processes we track */
	uint64_t	idle_since;	/* refs fell to 0 then (LRU order of eviction) */
	uint64_t	evicted_at;	/* UF_EVICTED since */
	struct hash_link link;		/* in by_id, unless an orphan */
	struct ufile	*prev, *next;	/* all files */
};

/* ---- the worker (unwind_worker.c) ---- */
struct ujob {
	struct ufile	*file;		/* the main thread's; the worker never reads it */
	int		fd;		/* the file, closed by the worker; or -1 */
	void		*image;		/* or an image, freed by the worker */
	size_t		len;
	/* results */
	int		err;		/* 0, or -1 with errmsg */
	char		errmsg[160];
	struct sp_unwind_row *rows;	/* kernel format, relative to base */
	uint32_t	nrows;
	uint64_t	base;
	uint64_t	build_ns;
	struct ujob	*next;
};

struct uworker;
/* Start the thread; *fd becomes readable when jobs are done. */
struct uworker *uworker_new(size_t queue_bytes, int *fd);
void uworker_free(struct uworker *w);
void uworker_submit(struct uworker *w, struct ujob *job);
/* Take back a job the thread has not started (and free it); false when
 * it is running or done: it then comes back through uworker_take_done. */
bool uworker_cancel(struct uworker *w, struct ujob *job);
/* Every finished job, oldest first (clears the fd). */
struct ujob *uworker_take_done(struct uworker *w);
/* Jobs queued or running. */
unsigned uworker_pending(struct uworker *w);
/* The rows of finished jobs were loaded: they no longer count against the bound. */
void uworker_release(struct uworker *w, size_t bytes);
void ujob_free(struct ujob *j);

/* ---- processes (unwind_procs.c) ---- */
struct upmap {
	uint64_t	start, end, pgoff;
	enum unwind_map_kind kind;
	struct ufile	*file;		/* NULL: frame pointers */
	struct uinode	*inode;		/* FILE mappings: the inode it came by */
};

struct uproc {
	pid_t		tgid;
	struct upmap	*maps;
	size_t		n;
	uint64_t	retry_at;	/* SP_EVENT_RETRY is not acted on before */
	uint64_t	retry_gap;	/* ... and its back-off (0: no mapping marked) */
	uint64_t	seen_at;	/* last described, or met in a drain */
	bool		unselected;	/* out of the selection: unmet */
	struct hash_link link;		/* in procs, by tgid */
};

struct uinode {
	uint64_t	dev, ino;
	struct ufile	*file;
	int		refs;
	struct hash_link link;		/* in by_inode */
};

struct unwind_cache {
	const struct unwind_kernel_ops *kops;
	void		*karg;
	const struct unwind_source_ops *sops;
	void		*sarg;
	uint64_t	idle_ns, backoff_ns;
	uint64_t	(*now)(void);	/* config's clock_ns, or clock_mono_ns */
	bool		defer_builds;
	uint64_t	drains;		/* unwind_cache_collect calls */
	uint32_t	max_table_rows;	/* kernel rows / UNWIND_TABLE_SHARE; 0: no bound */
	uint32_t	kernel_capacity;
	struct uworker	*worker;
	int		fd;
	struct ufile	*files;		/* all of them, newest first */
	struct hash_chain by_id;	/* files by identity */
	struct hash_chain by_inode;	/* files by (dev, ino) of a mapping */
	struct hash_chain procs;	/* by tgid */
	struct unwind_stats st;
};

/* unwind_files.c */
/* The file behind mapping m of tgid, taking one reference (and one on its
 * inode entry, in *inode); NULL when it has none we can use. */
struct ufile *unwind_file_get(struct unwind_cache *c, pid_t tgid, const struct unwind_mapping *m,
			      struct uinode **inode);
void unwind_file_put(struct unwind_cache *c, struct ufile *f, struct uinode *inode);
/* f was deferred: queue its build now that it was mapped in a second
 * drain (a mapping gave it an fd). */
void unwind_file_build_deferred(struct unwind_cache *c, struct ufile *f);
/* Forget f (its table is no longer in the kernel, no job refers to it). */
void unwind_file_free(struct unwind_cache *c, struct ufile *f);

/* unwind_procs.c */
/* Give tgid's array to the kernel as its files stand now. */
void unwind_procs_push(struct unwind_cache *c, struct uproc *p);
/* Push every process that maps a dirty file; clear the flags. */
void unwind_procs_push_dirty(struct unwind_cache *c);
/* Forget processes that no longer exist. */
void unwind_procs_collect(struct unwind_cache *c);
/* Forget the processes no drain has met for the idle time (their arrays
 * too); how many. */
size_t unwind_procs_forget_unseen(struct unwind_cache *c);
void unwind_procs_free_all(struct unwind_cache *c);
size_t unwind_procs_bytes(const struct unwind_cache *c);

#endif /* UNWIND_INTERNAL_H */
