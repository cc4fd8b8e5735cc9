/*
 * sym_debuginfod_priv.h - the debuginfod client's files talk through this
 * header; only sym_debuginfod*.c include it (symbolize.c uses the
 * sym_debuginfod_* calls of sym_internal.h).
 *
 *   sym_debuginfod.c         the build-id table: wanted, running, ready, failed;
 *                            what the symbolizer calls (main thread)
 *   sym_debuginfod_queue.c   the queue between the table and the workers
 *   sym_debuginfod_worker.c  worker threads: libdebuginfod, timeouts, size cap
 *   sym_debuginfod_verify.c  a fetched file proves it belongs before use
 *   sym_debuginfod_disk.c    the on-disk cache: 0700, bounded in bytes
 *
 * Threads: the main thread (lookups, collect, stores) and 1-2 workers share
 * struct sym_debuginfod under `lock`, which nobody holds across the
 * network, a file parse or a directory walk.
 */
#ifndef SYM_DEBUGINFOD_PRIV_H
#define SYM_DEBUGINFOD_PRIV_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include "sym_internal.h"

#define DFD_ENTRIES		1024	/* build-ids remembered (wanted, ready, failed) */
#define DFD_WORKERS_MAX		2
#define DFD_URLS_MAX		4096	/* what stackprof.control.debuginfod takes */

enum dfd_state {
	DFD_FREE = 0,
	DFD_QUEUED,		/* waiting for a worker */
	DFD_RUNNING,		/* a worker is asking the servers */
	DFD_READY,		/* verified file in the cache (symbols in `parsed` until taken) */
	DFD_FAILED,		/* not had, or failed: not asked again before retry_ns */
};

struct dfd_entry {
	uint8_t		id[SYM_BUILD_ID_MAX];
	int		idlen;
	enum dfd_state	state;
	uint64_t	seq;		/* queue order */
	uint64_t	retry_ns;	/* DFD_FAILED: ask again from this time */
	struct sym_elf	*parsed;	/* DFD_READY: its symbols, until a table takes them */
};

/* Settings with the defaults filled in. */
struct dfd_config {
	char		cache_dir[PATH_MAX - 160];	/* room for /BUILDID/debuginfo */
	uint64_t	cache_max_bytes, file_max_bytes;
	uint64_t	first_byte_ns, total_ns, retry_ns;
	unsigned	workers;
};

struct sym_debuginfod {
	struct dfd_config cfg;
	pthread_mutex_t	lock;
	pthread_cond_t	wake;		/* work queued, URLs changed, or stop */
	struct dfd_entry ent[DFD_ENTRIES];
	uint64_t	next_seq;
	char		urls[DFD_URLS_MAX + 1];
	atomic_bool	on;		/* urls not empty (read without the lock) */
	atomic_uint	urls_gen;	/* bumped at each change: running requests stop */
	atomic_bool	stop;
	pthread_t	threads[DFD_WORKERS_MAX];
	unsigned	nthreads;
	pthread_mutex_t	disk_lock;	/* one trim of the directory at a time */
	struct symbolizer_debuginfod_stats cnt;	/* under lock */
};

/* A job a worker took from the table. */
struct dfd_job {
	int		slot;
	uint8_t		id[SYM_BUILD_ID_MAX];
	int		idlen;
	unsigned	urls_gen;
};

enum dfd_outcome {
	DFD_GOT,		/* verified; symbols in `parsed` */
	DFD_NOT_FOUND,		/* the servers do not have it */
	DFD_NET_ERROR,		/* could not connect, reset, HTTP errors */
	DFD_TIMEOUT,		/* no answer in time, or too slow */
	DFD_REJECTED,		/* an answer we refused: too big, not ELF, wrong id */
	DFD_CANCELLED,		/* URLs changed or shutdown: forget it */
};

struct dfd_result {
	enum dfd_outcome outcome;
	bool		network;	/* the servers were asked (not the disk cache) */
	uint64_t	bytes;		/* downloaded */
	uint64_t	us;		/* how long the request took */
	struct sym_elf	*parsed;	/* DFD_GOT: handed to the table */
	bool		cache_bytes_known;
	uint64_t	cache_bytes;	/* the disk cache after this request */
};

/* sym_debuginfod_queue.c, called with d->lock held: queue en for a worker. */
void dfd_enqueue(struct sym_debuginfod *d, struct dfd_entry *en);
/* sym_debuginfod_queue.c: the table side of a worker's loop.  next_job
 * blocks until there is work (false: stop); finish_job records the result. */
bool dfd_next_job(struct sym_debuginfod *d, struct dfd_job *job);
void dfd_finish_job(struct sym_debuginfod *d, const struct dfd_job *job,
		    struct dfd_result *res);

/* sym_debuginfod_worker.c */
/* Point libdebuginfod at the cache and limits (environment variables),
 * before any worker runs. */
int dfd_worker_env(const struct dfd_config *cfg);
/* Make urls what libdebuginfod reads, while workers may run. */
void dfd_worker_set_urls(const char *urls);
int dfd_workers_start(struct sym_debuginfod *d);
void dfd_workers_join(struct sym_debuginfod *d);

/* sym_debuginfod_verify.c: the symbols of fd if it is an ELF file of at
 * most max_bytes with build-id `id` and function symbols; else NULL. */
struct sym_elf *dfd_verify(int fd, const uint8_t *id, int idlen, uint64_t max_bytes);

/* sym_debuginfod_disk.c */
/* Create the cache directory 0700, or accept it if it is a directory we
 * own (made 0700); write libdebuginfod's settings files into it. */
int dfd_disk_prepare(const struct dfd_config *cfg);
/* dir/HEX/debuginfo, where libdebuginfod caches the debug file of id. */
void dfd_disk_target(const char *dir, const uint8_t *id, int idlen, char *out, size_t len);
/* Remove a cached file (refused, or a negative-cache stub) and its directory. */
void dfd_disk_forget(const char *target);
/* Mark target used now, for least-recently-used trimming. */
void dfd_disk_touch(const char *target);
/* Remove least recently used files until the cache holds at most max
 * bytes; returns the bytes it holds then. */
uint64_t dfd_disk_trim(const char *dir, uint64_t max);

#endif /* SYM_DEBUGINFOD_PRIV_H */
