/*
 * unwinder.h - whole user stacks without frame pointers: the glue between
 * the symbolizer (what a process maps, its files as it sees them), the
 * unwind table cache (pmda/unwind/: one table per file, built on a worker
 * thread) and the sampler (the kernel's tables and mapping arrays, read by
 * the BPF walker).  The agent owns one per sampler.
 *
 * Under SP_UNWIND_FP nothing is described (the kernel's frame-pointer walk
 * needs no table); what was described stays, so going back to auto costs
 * nothing.  How it works: "Unwinding" in docs/design.md.
 */
#ifndef UNWINDER_H
#define UNWINDER_H

#include <stdbool.h>
#include <sys/types.h>
#include "sampler/sampler.h"
#include "symbolizer/symbolize.h"
#include "unwind/unwind.h"

struct unwinder;

/* cfg may be NULL (the cache's defaults).  NULL on failure (errno). */
struct unwinder *unwinder_new(struct sampler *s, struct symbolizer *sym,
			      const struct unwind_config *cfg);
/* Stops the worker; the kernel's tables go with the sampler. */
void unwinder_free(struct unwinder *u);

/* SP_UNWIND_AUTO or SP_UNWIND_FP: the sampler first, then ours. */
int unwinder_set_mode(struct unwinder *u, enum sp_unwind_mode mode);

/* Readable (poll) when built tables wait; unwinder_poll loads them. */
int unwinder_fd(const struct unwinder *u);
void unwinder_poll(struct unwinder *u);

/* Give tgid's executable mappings, as the symbolizer last read them, to
 * the walker (and queue builds for files not seen before).  0, or -errno
 * (-ESRCH: gone; -ENOENT: nothing mapped, a kernel thread). */
int unwinder_describe(struct unwinder *u, pid_t tgid);
/* A drained stack's process: described once, on first sight. */
void unwinder_note_process(struct unwinder *u, pid_t tgid);
/* The sampler's events: an exec (described anew when selected, forgotten
 * otherwise; its libraries come with its first refresh request, which a
 * new process may make at once), the walker's request for a refresh (maps
 * read again), an exit (forgotten; the kernel dropped its array itself). */
void unwinder_on_exec(struct unwinder *u, pid_t tgid, bool selected);
void unwinder_on_maps(struct unwinder *u, pid_t tgid);
/* The walker asks again for a mapping without a table (SP_UNWIND_RETRY):
 * as unwinder_on_maps, when the process's back-off allows. */
void unwinder_on_retry(struct unwinder *u, pid_t tgid);
void unwinder_on_exit(struct unwinder *u, pid_t tgid);
/* The selection changed: processes keep() rejects give up their tables
 * first when the rows are needed (unwind_processes_select). */
void unwinder_on_selection(struct unwinder *u, bool (*keep)(void *arg, pid_t tgid), void *arg);

/* stackprof.control.interpreters: Python frames in user stacks, or not. */
int unwinder_set_interpreters(struct unwinder *u, bool on);

/* Once per drain: processes gone, tables idle too long. */
void unwinder_collect(struct unwinder *u);

void unwinder_stats(const struct unwinder *u, struct unwind_stats *st);
/* The cache itself (tests and benches look inside). */
struct unwind_cache *unwinder_cache(struct unwinder *u);

#endif /* UNWINDER_H */
