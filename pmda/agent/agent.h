/*
 * agent.h - the state of one pmdastackprof process and its parts.
 *
 * main.c owns the one struct agent and hands it to every part: drain.c
 * fills each profile's window, event queue and history from the sampler,
 * pcp/ serves what is there through the accessors below, and controls.c
 * (the control table) is the only code that changes the configuration,
 * through the agent_set_* setters below.
 */
#ifndef AGENT_H
#define AGENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "sampler/sampler.h"
#include "symbolizer/symbolize.h"
#include "controls/control_parse.h"
#include "profiles.h"
#include "controls/proc_filter.h"
#include "unwinder.h"

/* The agent is opaque outside pmda/agent/ (agent_priv.h holds it);
 * these give the parts the PCP face and main.c read. */
struct agent;
unsigned agent_interval_ms(const struct agent *a);
unsigned agent_heatmap_slots(const struct agent *a);
struct sampler *agent_sampler(const struct agent *a);	/* NULL without BPF */
struct symbolizer *agent_symbolizer(const struct agent *a);
struct profile *agent_profile(struct agent *a, int p);	/* p < NPROFILES */
/* Where debuginfod answers are kept (before agent_start_threads). */
void agent_set_debuginfod_cache(struct agent *a, const char *path);

/* Cheap set-up, before pmcd is answered: the parts that need no privilege,
 * the configuration zeroed until controls_reset() gives it its defaults. */
struct agent *agent_new(void);
/* The slow part, while pmcd knows we are not ready: the symbolizer, then
 * the BPF sampler when with_bpf (without it the agent serves what it is
 * handed, as when BPF cannot load; unit tests).  No thread starts here:
 * capabilities are per thread, and main drops them after this. */
int agent_start(struct agent *a, bool with_bpf);
/* Then, with privileges dropped: the debuginfod workers (libdebuginfod's
 * environment is set before any other thread) and the unwind table
 * worker.  Each logs and leaves its feature off when it cannot start. */
void agent_start_threads(struct agent *a);
void agent_free(struct agent *a);

/* Who takes the stacks sampler_reconfigure hands over between drains (the
 * drain, which publishes them with its next interval). */
void agent_on_handover(struct agent *a, sampler_stack_fn fn, void *arg);

/*
 * The setters of the control table (controls.c): each is called with a
 * value the table has already checked, applies it to the sampler first and
 * records it only if that worked, so a refused change leaves everything as
 * it was.  A setter may take a parsed part of v (regex, pids) by setting it
 * to NULL; the caller releases whatever is left.
 */
int agent_set_enabled(struct agent *a, struct control_value *v);
int agent_set_frequency(struct agent *a, struct control_value *v);
int agent_set_interval(struct agent *a, struct control_value *v);
int agent_set_heatmap_slots(struct agent *a, struct control_value *v);
int agent_set_process(struct agent *a, struct control_value *v);
int agent_set_pids(struct agent *a, struct control_value *v);
int agent_set_unwind(struct agent *a, struct control_value *v);
int agent_set_debuginfod(struct agent *a, struct control_value *v);
int agent_set_offcpu(struct agent *a, struct control_value *v);
int agent_set_offcpu_min_us(struct agent *a, struct control_value *v);
int agent_set_offcpu_sample(struct agent *a, struct control_value *v);
int agent_set_offwake(struct agent *a, struct control_value *v);
int agent_set_pagefault(struct agent *a, struct control_value *v);
int agent_set_pagefault_period(struct agent *a, struct control_value *v);
int agent_set_interpreters(struct agent *a, struct control_value *v);
int agent_set_keyframe_s(struct agent *a, struct control_value *v);

/* Push the current PID set of the filter to the sampler (each drain). */
void agent_refresh_filter(struct agent *a);

/* Handle the sampler's queued events (main.c, when its fd is readable):
 * read an exec'd program's maps now, while they exist, and select it at
 * once if it matches the process regex; hand the walker's requests for
 * fresh maps and process exits to the unwinder. */
void agent_handle_execs(struct agent *a);
/* The fd to poll for those events, or -1. */
int agent_exec_fd(const struct agent *a);
/* The fd that is readable when unwind tables are built, or -1; then
 * agent_handle_unwind loads them. */
int agent_unwind_fd(const struct agent *a);
void agent_handle_unwind(struct agent *a);

#endif /* AGENT_H */
