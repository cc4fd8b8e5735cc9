/*
 * symbolize.h - turn sampled addresses into DeepFlow-style frame names.
 *
 * Names produced (see docs/design.md "Frame naming"):
 *   "[k] func"             kernel function (module symbols too)
 *   "[l] func"             function in a shared library
 *   "func"                 function in the process's executable
 *   "[/path/to/module]"    module known, symbol not ("[vdso]", "[vsyscall]" alike)
 *   "[unknown] [anon]"     anonymous executable memory (JIT) with no perf map entry
 *   "[unknown] [memfd:N]"  code in a memfd with no perf map entry
 *   "[unknown] 0x%016lx"   nothing known (address in no mapping, process gone)
 * JIT code named by /tmp/perf-PID.map gets the map's name as is.
 * A ';' in a name becomes ',' and control characters become '?', so that
 * folded lines stay parseable.  Names are demangled (C++, Rust).
 */
#ifndef SYMBOLIZE_H
#define SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct symbolizer;

/* requests = hits + misses + failures, but for requests cancelled by a URL
 * change or shutdown; answers from the on-disk cache are not requests. */
struct symbolizer_debuginfod_stats {
	uint64_t	requests;	/* build-ids asked of the servers */
	uint64_t	hits;		/* verified debug files received */
	uint64_t	misses;		/* no server had the build-id */
	uint64_t	failures;	/* timeouts, network errors, rejected answers */
	uint64_t	rejected;	/* of which answers refused: not ELF, wrong
					 * build-id, no symbols, too big */
	uint64_t	bytes;		/* bytes of the files received */
	uint64_t	cache_bytes;	/* bytes in the on-disk cache now */
	uint64_t	slowest_us;	/* the longest request */
	uint64_t	named_files;	/* ELF tables given a fetched file's symbols */
};

struct symbolizer_stats {
	uint64_t	kernel_lookups;
	uint64_t	user_lookups;
	uint64_t	misses;		/* addresses that got a fallback name */
	uint64_t	lost_processes;	/* /proc/PID gone before we could read maps */
	uint64_t	cache_hits;
	uint64_t	cache_misses;
	uint64_t	cache_evictions;
	uint64_t	cache_bytes;	/* current size of the ELF + process caches */
	/* why names fell back (each also counted in misses where a frame got one) */
	uint64_t	elf_errors;	/* unreadable, truncated or corrupt ELF files */
	uint64_t	debug_mismatches; /* debug file with wrong CRC/build-id, bad xz */
	uint64_t	perfmap_bad_lines; /* perf map lines that did not parse */
	uint64_t	proc_errors;	/* /proc entries or mapped files we could not open */
	uint64_t	processes;	/* process entries cached now */
	/* inputs refused by a bound (docs/design.md, "Bounds") */
	uint64_t	elf_refused;	/* symbol tables or MiniDebugInfo over the bounds */
	uint64_t	perfmap_refused; /* perf map reads cut at a bound */
	uint64_t	maps_truncated;	/* /proc/PID/maps reads stopped at the line bound */
	uint64_t	budget_refused;	/* tables not loaded: the cache was far over its limit */
	struct symbolizer_debuginfod_stats debuginfod;	/* all 0 while it is off */
};

/* cache_limit_bytes bounds the ELF symbol and process caches (LRU).
 * /proc/kallsyms is opened here and kept: make the symbolizer before
 * dropping CAP_SYSLOG, and kernel addresses stay readable. */
struct symbolizer *symbolizer_new(size_t cache_limit_bytes);
void symbolizer_free(struct symbolizer *s);

/* Write the name of a kernel address into buf (always NUL-terminated). */
void symbolize_kernel(struct symbolizer *s, uint64_t ip, char *buf, size_t len);
/* Write the name of a user address of process tgid into buf.  false when
 * the process's executable mappings are known (and were re-read if they
 * may be stale) and none holds ip: the address is not code. */
bool symbolize_user(struct symbolizer *s, pid_t tgid, uint64_t ip, char *buf, size_t len);

/*
 * CPython (docs/design.md "Interpreter frames").  A user stack entry with
 * SP_INTERP_TAG set is a Python frame, named "qualname (filename)" by
 * symbolize_user from the code object in the process's memory, or
 * "[unknown] [python]".  symbolizer_python_record finds and checks the
 * interpreter of tgid for the BPF walker: 0 with *rec filled; -ENOENT not
 * CPython; -EAGAIN still starting (ask again); -ENOTSUP a CPython that
 * cannot be read safely (counted); -ESRCH gone.
 */
struct sp_python_proc;
int symbolizer_python_record(struct symbolizer *s, pid_t tgid, struct sp_python_proc *rec);
struct symbolizer_python_stats {
	uint64_t	processes;	/* CPython processes given to the walker */
	uint64_t	unsupported;	/* CPython processes it cannot read safely */
	uint64_t	names;		/* Python frames named */
	uint64_t	cache_hits;	/* of which from the code-object cache */
	uint64_t	cache_stale;	/* cached names refused: the object changed */
	uint64_t	unnamed;	/* Python frames named "[unknown] [python]" */
};
void symbolizer_python_stats(const struct symbolizer *s, struct symbolizer_python_stats *st);

/* A process was seen (e.g. in a drained stack): capture its maps now, while
 * /proc/PID exists, or notice that its PID now runs another image.  Cheap
 * when already known: at most one /proc read per process per collect. */
void symbolizer_note_process(struct symbolizer *s, pid_t tgid);
/* A process just exec'd (sched_process_exec): its maps changed while its
 * pid and start time did not, so capture them again now, unconditionally. */
void symbolizer_note_exec(struct symbolizer *s, pid_t tgid);
/* A dynamically linked program maps its libraries only after exec: for a
 * while after symbolizer_note_exec we re-read its maps (at 1, 3, 10, 30 ms).
 * symbolizer_timeout_ms gives the ms until the next re-read is due (-1:
 * none pending) for the caller's poll timeout; symbolizer_tick does what is
 * due.  Other calls (note_exec, note_process, collect) also do it. */
int symbolizer_timeout_ms(const struct symbolizer *s);
void symbolizer_tick(struct symbolizer *s);

/*
 * The executable mappings of a process, for the unwinder: the files and
 * images behind them, so that it neither parses /proc/PID/maps again nor
 * opens files any other way.
 */
enum symbolizer_map_kind {
	SYMBOLIZER_MAP_FILE,		/* a file: path, dev, ino */
	SYMBOLIZER_MAP_VDSO,		/* [vdso] */
	SYMBOLIZER_MAP_OTHER,		/* anonymous (JIT), memfd, [vsyscall] */
};
struct symbolizer_mapping {
	uint64_t	start, end, pgoff;
	uint64_t	dev, ino;
	enum symbolizer_map_kind kind;
	const char	*path;		/* as the process sees it; NULL unless FILE */
};
/* Call fn for each executable mapping of tgid, sorted by start, as last
 * read (read now if tgid is not known yet).  Returns how many, or -ESRCH
 * when its maps cannot be read.  m is valid during the call only. */
int symbolizer_mappings(struct symbolizer *s, pid_t tgid,
			void (*fn)(void *arg, const struct symbolizer_mapping *m), void *arg);
/* Read tgid's maps again now (something was mapped since: dlopen); 0, or
 * -ESRCH when it is gone or runs another image. */
int symbolizer_reread_mappings(struct symbolizer *s, pid_t tgid);
/* Open the file of mapping m of tgid as the process sees it (its root,
 * else map_files; device and inode checked).  An fd, or -errno. */
int symbolizer_open_mapping(struct symbolizer *s, pid_t tgid, const struct symbolizer_mapping *m);
/* A malloc'd copy of the image of tgid's [vdso] mapping m (ours when theirs
 * cannot be read and has the same size); 0, or -errno. */
int symbolizer_read_vdso(struct symbolizer *s, pid_t tgid, const struct symbolizer_mapping *m,
			 void **image, size_t *len);

/* Drop process entries whose processes have exited, and ELF tables no
 * live process has used for the idle time (called once per drain). */
void symbolizer_collect(struct symbolizer *s);
/* How long an unused ELF table stays cached (default 60 s; tests). */
void symbolizer_set_cache_idle(struct symbolizer *s, uint64_t idle_ns);

void symbolizer_get_stats(const struct symbolizer *s, struct symbolizer_stats *st);

/*
 * debuginfod: when a mapped file has no .symtab, no local debug file and no
 * MiniDebugInfo and one of its frames could not be named, its debug file is
 * asked of debuginfod servers by build-id, in background threads: nothing
 * here waits on the network.  A file that arrives is verified (ELF, same
 * build-id, function symbols) and its symbols replace the file's table at
 * the next symbolizer_collect, so names change between drains only.
 * libdebuginfod takes its settings from the environment, so one symbolizer
 * per process may use it at a time.
 */
struct symbolizer_debuginfod_config {
	const char	*cache_dir;	/* on-disk cache; created 0700, must be ours */
	uint64_t	cache_max_bytes;	/* 0: 1 GiB; least recently used go first */
	uint64_t	file_max_bytes;	/* 0: 256 MiB (at most cache_max_bytes);
					 * a larger answer is aborted */
	unsigned	first_byte_ms;	/* 0: 10 s with no answer aborts a request */
	unsigned	total_ms;	/* 0: 120 s for the whole request */
	unsigned	retry_s;	/* 0: 600 s before a build-id that was not
					 * had, or failed, is asked again */
	unsigned	workers;	/* requests at a time: 0: 1, at most 2 */
};
/* Once, before symbolizer_set_debuginfod.  0, or -errno with nothing
 * changed: -EINVAL bad config, -EBUSY another symbolizer has it, or the
 * cache directory's error (-ENOTDIR, -EPERM: not a directory we own). */
int symbolizer_debuginfod_setup(struct symbolizer *s,
				const struct symbolizer_debuginfod_config *cfg);
/* Space-separated server URLs; "" switches fetching off (queued requests
 * dropped, running ones cancelled).  0, or -EINVAL (not set up, control
 * characters, longer than 4096 bytes) with the URLs unchanged. */
int symbolizer_set_debuginfod(struct symbolizer *s, const char *urls);

/* Read kernel symbols from path instead of /proc/kallsyms (tests). */
void symbolizer_set_kallsyms(struct symbolizer *s, const char *path);

/* Make an arbitrary name safe as one folded frame, in place. */
void frame_name_sanitize(char *name);

/* The symbolizer's stats (sym_stats.c), over struct symbolizer_stats. */
struct stat_table;
extern const struct stat_table symbolizer_stat_table;

#endif /* SYMBOLIZE_H */
