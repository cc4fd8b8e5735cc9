/*
 * interp.h - interpreter frames for the walker: which processes run an
 * interpreter it can read (CPython, found and checked by the symbolizer),
 * given to the sampler as records.  The unwinder owns one and tells it of
 * each process it describes; a process still starting (its interpreter
 * not initialized yet) is asked again at each collect, a bounded number
 * of times.  Design: "Interpreter frames" in docs/design.md.
 */
#ifndef INTERP_H
#define INTERP_H

#include <stdbool.h>
#include <sys/types.h>
#include "sampler/sampler.h"
#include "symbolizer/symbolize.h"

struct interp;

struct interp *interp_new(struct sampler *s, struct symbolizer *sym);
void interp_free(struct interp *it);
/* tgid's mappings were (re)described: look for an interpreter. */
void interp_describe(struct interp *it, pid_t tgid);
/* Once per drain: retry the processes that were still starting. */
void interp_collect(struct interp *it);
/* stackprof.control.interpreters: 0, or the sampler's -errno. */
int interp_set_enabled(struct interp *it, bool on);

#endif /* INTERP_H */
