/*
 * unwind.h - the unwind table cache: which processes map which files, one
 * table per file built once on a worker thread and loaded into the kernel,
 * and each process's mapping array for the BPF walker.  With
 * unwind_table.h (the compiler) the whole contract of pmda/unwind/.
 *
 * The cache reaches the kernel and the process's files only through the
 * two tables of functions the caller gives (the agent passes the
 * sampler's and the symbolizer's), so this folder includes neither.
 *
 * Threads: every function here is for the caller's thread; the worker
 * only compiles (libdw/libelf) and never calls back.  unwind_cache_fd()
 * becomes readable when builds finish; unwind_cache_poll() then loads
 * them and updates the processes that were waiting.  How it works:
 * "Unwinding" in docs/design.md.
 */
#ifndef UNWIND_H
#define UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "stackprof.h"

/* One executable mapping of a process, as /proc/PID/maps gives it. */
enum unwind_map_kind {
	UNWIND_MAP_FILE,		/* a file: its table comes from its CFI */
	UNWIND_MAP_VDSO,		/* the vDSO: from its in-memory image */
	UNWIND_MAP_OTHER,		/* JIT, memfd, [vsyscall]: frame pointers */
};
struct unwind_mapping {
	uint64_t	start, end, pgoff;
	uint64_t	dev, ino;
	enum unwind_map_kind kind;
};

/* The kernel side (the sampler's functions; see sampler.h). */
struct unwind_kernel_ops {
	/* load rows; the table id, or -errno (-ENOSPC: no room) */
	int	(*table_add)(void *arg, uint64_t base, const struct sp_unwind_row *rows,
			     uint32_t nrows);
	int	(*table_remove)(void *arg, uint32_t id);
	int	(*process_set)(void *arg, pid_t tgid, const struct sp_unwind_mapping *maps,
			       uint32_t n);
	int	(*process_remove)(void *arg, pid_t tgid);
};

/* The process's files (the symbolizer's functions; see symbolize.h). */
struct unwind_source_ops {
	/* the file behind m as tgid sees it: an fd the cache closes, or -errno */
	int	(*open_file)(void *arg, pid_t tgid, const struct unwind_mapping *m);
	/* a malloc'd copy of the vDSO image of m, freed by the cache */
	int	(*read_image)(void *arg, pid_t tgid, const struct unwind_mapping *m,
			      void **image, size_t *len);
};

/* A table larger than this share of the kernel's rows is refused, not
 * loaded at the expense of every other (libLLVM: 979k rows of 1,048k). */
#define UNWIND_TABLE_SHARE	4

struct unwind_config {
	uint64_t	idle_ns;	/* a table no process maps goes after this (0: 60 s) */
	size_t		queue_bytes;	/* bound of built rows waiting to be loaded (0: 64 MiB) */
	uint32_t	kernel_rows;	/* the kernel's row capacity (0: no share bound) */
	uint64_t	backoff_ns;	/* a table evicted for room is not rebuilt before (0: 60 s) */
	/* Build a file's table only once it has been mapped in two drains
	 * (two unwind_cache_collect calls apart), or by a process that lived
	 * through one; until then its frames step by frame pointer.  Files of
	 * processes that come and go within an interval are never built. */
	bool		defer_builds;
	/* The clock of idle times, back-offs and retries (NULL:
	 * clock_mono_ns): a test drives it by hand, so what it checks does not
	 * hang on how fast a loaded host runs it. */
	uint64_t	(*clock_ns)(void);
};

struct unwind_stats {
	uint64_t	builds;		/* tables built */
	uint64_t	build_errors;	/* files whose CFI was refused: no table, counted once */
	uint64_t	build_ns;	/* worker time spent building */
	uint64_t	kernel_full;	/* tables that did not fit in the kernel's rows */
	uint64_t	evictions;	/* tables unloaded: idle, or to make room */
	uint64_t	mappings_dropped; /* mappings beyond SP_UNWIND_MAX_MAPPINGS */
	uint64_t	process_errors;	/* mapping arrays the kernel refused */
	uint64_t	tables;		/* files known now (loaded, building or failed) */
	uint64_t	tables_loaded;	/* ... of which in the kernel */
	uint64_t	kernel_rows;	/* rows in the kernel */
	uint64_t	kernel_bytes;	/* kernel_rows x sizeof(struct sp_unwind_row) */
	uint64_t	user_bytes;	/* memory the cache holds (entries + rows waiting) */
	uint64_t	processes;	/* processes with mapping arrays */
	uint64_t	pending;	/* builds queued or running */
	uint64_t	too_large;	/* tables refused: over 1/UNWIND_TABLE_SHARE of the rows */
	uint64_t	rebuilds_deferred; /* mappings of a table evicted for room, in its back-off */
	uint64_t	builds_dropped;	/* builds not made: no tracked process maps the file
					 * any more (queued, or deferred) */
};

struct unwind_cache;

/* A cache with its worker thread started; NULL on failure (errno). */
struct unwind_cache *unwind_cache_new(const struct unwind_config *config,
				      const struct unwind_kernel_ops *kops, void *karg,
				      const struct unwind_source_ops *sops, void *sarg);
/* Stops the worker; unloads nothing (the kernel maps go with the sampler). */
void unwind_cache_free(struct unwind_cache *c);

/* Readable (poll) when finished builds wait for unwind_cache_poll. */
int unwind_cache_fd(const struct unwind_cache *c);
/* Load finished tables into the kernel, then give the processes that
 * waited for them their new mapping arrays.  Never blocks on a build. */
void unwind_cache_poll(struct unwind_cache *c);
/* Wait up to timeout_ms for every queued build to finish, and poll (tests,
 * benches). 0 when none is left, -ETIMEDOUT otherwise. */
int unwind_cache_settle(struct unwind_cache *c, int timeout_ms);

/*
 * tgid's executable mappings, sorted by start (any earlier set replaced).
 * Files seen before (by inode, then build-id, else dev+inode+mtime) reuse
 * their table; others are queued for the worker (with defer_builds, once
 * seen in a second drain or still mapped at the next).  The kernel gets the
 * array at once, with frame pointers where a table is not loaded yet; it
 * gets it again as tables arrive.  -errno when tgid is refused (nothing
 * changed); failures of single files are counted, never fatal.
 */
int unwind_process_set(struct unwind_cache *c, pid_t tgid,
		       const struct unwind_mapping *maps, size_t n);
/*
 * tgid's walker met a mapping marked SP_UNWIND_RETRY (its file could not
 * be opened or identified, or its table was unloaded for room): true when
 * describing tgid again (unwind_process_set) is due.  True at most once
 * per back-off, which doubles from 1 s to 64 s while some mapping stays
 * marked, so that a file that never opens costs little.  A table unloaded
 * for room is built again only after its own back-off (backoff_ns).
 */
bool unwind_process_retry_due(struct unwind_cache *c, pid_t tgid);
/* Forget tgid; with kernel_too, remove its array from the kernel (the
 * kernel drops it by itself when the process exits). */
void unwind_process_forget(struct unwind_cache *c, pid_t tgid, bool kernel_too);
bool unwind_process_known(const struct unwind_cache *c, pid_t tgid);
/* A drain met tgid: unwind_process_known, and tgid's tables count as in
 * use.  A process no drain has met for the idle time gives up its tables
 * when another needs the rows; met again, it is described again. */
bool unwind_process_seen(struct unwind_cache *c, pid_t tgid);
/* The selection changed: the processes keep() rejects are sampled no
 * more, so they count as unmet for the idle time (the first to give up
 * their tables when another needs the rows) until the selection takes
 * them again or they are described again.  Waiting out the idle time
 * instead left a host's long-lived processes holding the rows while
 * every test's new python3 got none. */
void unwind_processes_select(struct unwind_cache *c, bool (*keep)(void *arg, pid_t tgid),
			     void *arg);
/* Once per drain: forget processes that no longer exist (a lost exit
 * event), unload tables no process has mapped for the idle time, queue
 * deferred files a process still maps. */
void unwind_cache_collect(struct unwind_cache *c);
/* The kernel lost every table and array (a new sampler): load again what
 * is needed, building files anew as processes name them. */
void unwind_cache_kernel_reset(struct unwind_cache *c);

void unwind_cache_stats(const struct unwind_cache *c, struct unwind_stats *st);

/* The cache's stats (unwind_stats.c), over struct unwind_stats. */
struct stat_table;
extern const struct stat_table unwind_stat_table;

#endif /* UNWIND_H */
