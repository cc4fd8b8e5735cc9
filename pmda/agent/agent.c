/*
 * agent.c - the PMDA's state, and the setters that change its knobs.
 *
 * Each setter is called by the control table (controls.c) with a value it
 * has already checked; it applies the change to the sampler first and
 * updates the state only if that worked, so a refused change leaves
 * everything as it was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "agent_priv.h"
#include "lib/clock.h"

/*
 * Symbol caches are bounded so the PMDA stays small on busy hosts.  The
 * bound must hold the working set: kernel symbols (~7 MB here) plus the
 * tables of the busy binaries (node, cc1: several MB each).  At 16 MB the
 * cache evicted on nearly every lookup and drains took 5-19 s (measured on
 * the dev host, load 10); at 64 MB it settled at 19 MB with 1 ms drains.
 */
#define SYMBOL_CACHE_BYTES	(64u << 20)
/* A dead process leaves the instance domain a minute after its last sample. */
#define WINDOW_EXPIRE_S		60
/* Records queued for clients that have not fetched them yet. */
#define EVENT_QUEUE_BYTES	(8u << 20)
/* History batches kept for clients that have not fetched them yet. */
#define HISTORY_BYTES		(8u << 20)
/* Debug files asked of debuginfod servers at a time: two, so that one slow
 * answer does not hold up every other file. */
#define DEBUGINFOD_WORKERS	2

/* Unwind tables for the new sampler; without them (logged) the walker
 * takes frame pointers, as in fp mode. */
static void
open_unwinder(struct agent *a)
{
	/* files of processes that live less than an interval are not built:
	 * on a busy host they are most of the files met (docs/design.md) */
	const struct unwind_config cfg = { .defer_builds = true };
	int	sts;

	if ((a->unwinder = unwinder_new(a->sampler, a->symbolizer, &cfg)) == NULL) {
		pmNotifyErr(LOG_ERR, "no unwind tables: %s", strerror(errno));
		sts = sampler_set_unwind_mode(a->sampler, a->unwind_mode);
	} else {
		sts = unwinder_set_mode(a->unwinder, a->unwind_mode);
	}
	if (sts < 0)
		pmNotifyErr(LOG_ERR, "unwind mode %s: %s", a->config.unwind, strerror(-sts));
}

/* The off-CPU and page-fault settings the controls hold, to a new sampler
 * (both profiles are off at open); a refusal is logged and the control
 * reads 0, since the profile is not collected. */
static void
apply_profiles(struct agent *a)
{
	int	sts;

	sampler_set_offcpu_min_us(a->sampler, a->config.offcpu_min_us);
	sampler_set_offcpu_sample(a->sampler, a->config.offcpu_sample);
	if ((sts = sampler_set_interpreters(a->sampler, a->config.interpreters != 0)) < 0)
		pmNotifyErr(LOG_ERR, "interpreter frames: %s", strerror(-sts));
	if ((sts = sampler_set_pagefault_period(a->sampler, a->config.pagefault_period)) < 0)
		pmNotifyErr(LOG_ERR, "page-fault period %u: %s", a->config.pagefault_period,
			    strerror(-sts));
	if (a->config.offwake && (sts = sampler_set_offwake(a->sampler, true)) < 0) {
		pmNotifyErr(LOG_ERR, "off-wake profile: %s", strerror(-sts));
		a->config.offwake = 0;
	}
	if (a->config.offcpu && (sts = sampler_set_offcpu(a->sampler, true)) < 0) {
		pmNotifyErr(LOG_ERR, "off-CPU profile: %s", strerror(-sts));
		a->config.offcpu = 0;
	}
	if (a->config.pagefault && (sts = sampler_set_pagefault(a->sampler, true)) < 0) {
		pmNotifyErr(LOG_ERR, "page-fault profile: %s", strerror(-sts));
		a->config.pagefault = 0;
	}
}

static int
open_sampler(struct agent *a)
{
	struct sampler_config	cfg = {
		.frequency_hz = a->config.frequency_hz,
		.interval_ms = a->config.interval_ms,
		.heatmap_slots = a->config.heatmap_slots,
	};
	int			sts;

	if ((sts = sampler_open(&a->sampler, &cfg)) < 0) {
		a->sampler = NULL;
		a->sampler_error = sts;
		pmNotifyErr(LOG_ERR, "cannot load the BPF sampler: %s", strerror(-sts));
		return sts;
	}
	a->sampler_error = 0;
	if (!a->config.enabled)
		sampler_set_enabled(a->sampler, false);
	if (a->threads)
		open_unwinder(a);
	apply_profiles(a);
	return 0;
}

static int
profiles_new(struct agent *a)
{
	int	i;

	for (i = 0; i < NPROFILES; i++) {
		struct profile	*p = &a->profiles[i];

		p->def = &profile_defs[i];
		p->events = events_new(p->def->type, EVENT_QUEUE_BYTES);
		p->history = history_new(p->def->value, HISTORY_BYTES);
		p->window = window_new(WINDOW_EXPIRE_S);
		if (!p->events || !p->history || !p->window)
			return -ENOMEM;
	}
	return 0;
}

static void
profiles_free(struct agent *a)
{
	int	i;

	for (i = 0; i < NPROFILES; i++) {
		window_free(a->profiles[i].window);
		events_free(a->profiles[i].events);
		history_free(a->profiles[i].history);
	}
}

struct agent *
agent_new(void)
{
	struct agent	*a = calloc(1, sizeof(*a));

	if (a == NULL)
		return NULL;
	a->config.process_regex = strdup("");
	a->config.pids_text = strdup("");
	a->config.unwind = strdup("auto");
	a->config.debuginfod_urls = strdup("");
	a->filter = proc_filter_new();
	if (!a->config.process_regex || !a->config.pids_text || !a->config.unwind ||
	    !a->config.debuginfod_urls || !a->filter || profiles_new(a) < 0) {
		agent_free(a);
		return NULL;
	}
	return a;
}

/* libdebuginfod reads its settings from the environment, which is only
 * safe to change before other threads run: set up once, here. */
static void
start_debuginfod(struct agent *a)
{
	struct symbolizer_debuginfod_config	cfg = {
		.cache_dir = a->debuginfod_cache, .workers = DEBUGINFOD_WORKERS,
	};
	const char				*urls = a->config.debuginfod_urls;

	a->debuginfod_error = a->debuginfod_cache == NULL ? -ENOTSUP :
			      symbolizer_debuginfod_setup(a->symbolizer, &cfg);
	if (a->debuginfod_error == 0)
		a->debuginfod_error = symbolizer_set_debuginfod(a->symbolizer, urls);
	if (a->debuginfod_error < 0 && urls[0] != '\0')
		pmNotifyErr(LOG_ERR, "debuginfod servers not asked: cache %s: %s",
			    a->debuginfod_cache ? a->debuginfod_cache : "not set",
			    strerror(-a->debuginfod_error));
}

int
agent_start(struct agent *a, bool with_bpf)
{
	uint64_t	t0 = clock_mono_ns();

	a->started = true;
	a->with_bpf = with_bpf;
	a->interval_frequency_hz = a->config.frequency_hz;
	if ((a->symbolizer = symbolizer_new(SYMBOL_CACHE_BYTES)) == NULL)
		return -ENOMEM;
	/* a PMDA without BPF still serves its controls and says why in the log */
	if (with_bpf)
		open_sampler(a);
	agent_refresh_filter(a);
	pmNotifyErr(LOG_INFO, "started in %.2f s: BPF sampler %s, %u Hz, interval %u ms",
		    (clock_mono_ns() - t0) / 1e9, a->sampler ? "loaded" : "NOT loaded",
		    a->config.frequency_hz, a->config.interval_ms);
	return 0;
}

void
agent_start_threads(struct agent *a)
{
	a->threads = true;
	start_debuginfod(a);
	if (a->sampler && a->unwinder == NULL)
		open_unwinder(a);
}

void
agent_free(struct agent *a)
{
	if (a == NULL)
		return;
	unwinder_free(a->unwinder);	/* its worker first: it names no map */
	if (a->sampler)
		sampler_close(a->sampler);
	symbolizer_free(a->symbolizer);
	profiles_free(a);
	proc_filter_free(a->filter);
	free(a->config.process_regex);
	free(a->config.pids_text);
	free(a->config.unwind);
	free(a->config.debuginfod_urls);
	free(a->state_path);
	free(a);
}

void
agent_on_handover(struct agent *a, sampler_stack_fn fn, void *arg)
{
	a->handover = fn;
	a->handover_arg = arg;
}

int
agent_set_enabled(struct agent *a, struct control_value *v)
{
	bool	enabled = v->u != 0;
	int	sts;

	/* BPF that failed to load is retried on every store of 1 */
	if (a->with_bpf && a->sampler == NULL && enabled && (sts = open_sampler(a)) < 0)
		return sts;
	if (a->sampler && (sts = sampler_set_enabled(a->sampler, enabled)) < 0) {
		pmNotifyErr(LOG_ERR, "sampler_set_enabled(%d): %s", enabled, strerror(-sts));
		return sts;
	}
	a->config.enabled = enabled;
	return 0;
}

/* Rate and interval size the BPF maps: the sampler may need new ones. */
static int
reconfigure(struct agent *a, unsigned hz, unsigned interval_ms)
{
	struct sampler_config	cfg = {
		.frequency_hz = hz,
		.interval_ms = interval_ms,
		.heatmap_slots = a->config.heatmap_slots,
	};
	int			sts;

	if (a->sampler == NULL)
		return 0;
	sts = sampler_reconfigure(a->sampler, &cfg, a->handover, a->handover_arg);
	if (sts < 0)
		pmNotifyErr(LOG_ERR, "sampler_reconfigure(%u Hz, %u ms): %s",
			    hz, interval_ms, strerror(-sts));
	return sts;
}

int
agent_set_frequency(struct agent *a, struct control_value *v)
{
	int	sts;

	if ((sts = reconfigure(a, v->u, a->config.interval_ms)) < 0)
		return sts;
	a->config.frequency_hz = v->u;
	return 0;
}

int
agent_set_interval(struct agent *a, struct control_value *v)
{
	int	sts;

	if ((sts = reconfigure(a, a->config.frequency_hz, v->u)) < 0)
		return sts;
	/* main.c reads it when it arms the next drain */
	a->config.interval_ms = v->u;
	return 0;
}

int
agent_set_heatmap_slots(struct agent *a, struct control_value *v)
{
	int	sts;

	if (v->u == a->config.heatmap_slots)
		return 0;	/* a change resets the counts: not for nothing */
	if (a->sampler && (sts = sampler_set_heatmap_slots(a->sampler, v->u)) < 0) {
		pmNotifyErr(LOG_ERR, "sampler_set_heatmap_slots(%u): %s", v->u, strerror(-sts));
		return sts;
	}
	a->config.heatmap_slots = v->u;
	return 0;
}

static int
replace_text(char **slot, const char *text)
{
	char	*copy = strdup(text);

	if (copy == NULL)
		return -ENOMEM;
	free(*slot);
	*slot = copy;
	return 0;
}

int
agent_set_process(struct agent *a, struct control_value *v)
{
	int	sts;

	if ((sts = replace_text(&a->config.process_regex, v->text)) < 0)
		return sts;
	proc_filter_set_regex(a->filter, v->regex);
	v->regex = NULL;	/* the filter's now */
	agent_refresh_filter(a);
	return 0;
}

int
agent_set_pids(struct agent *a, struct control_value *v)
{
	char	*copy = strdup(v->text);
	int	sts;

	if (copy == NULL)
		return -ENOMEM;
	if ((sts = proc_filter_set_pids(a->filter, v->pids, v->npids)) < 0) {
		free(copy);
		return sts;
	}
	free(a->config.pids_text);
	a->config.pids_text = copy;
	agent_refresh_filter(a);
	return 0;
}

int
agent_set_unwind(struct agent *a, struct control_value *v)
{
	enum sp_unwind_mode	mode = (enum sp_unwind_mode)v->u;
	char			*copy = strdup(v->text);
	int			sts = 0;

	if (copy == NULL)
		return -ENOMEM;
	if (a->unwinder)
		sts = unwinder_set_mode(a->unwinder, mode);
	else if (a->sampler)
		sts = sampler_set_unwind_mode(a->sampler, mode);
	if (sts < 0) {
		pmNotifyErr(LOG_ERR, "unwind mode %s: %s", v->text, strerror(-sts));
		free(copy);
		return sts;
	}
	free(a->config.unwind);
	a->config.unwind = copy;
	a->unwind_mode = mode;
	return 0;
}

int
agent_set_debuginfod(struct agent *a, struct control_value *v)
{
	char	*copy = strdup(v->text);
	int	sts = 0;

	if (copy == NULL)
		return -ENOMEM;
	/* before agent_start_threads the value only waits for start_debuginfod */
	if (a->threads && a->debuginfod_error < 0)
		sts = v->text[0] != '\0' ? a->debuginfod_error : 0;
	else if (a->threads)
		sts = symbolizer_set_debuginfod(a->symbolizer, v->text);
	if (sts < 0) {
		free(copy);
		return sts;
	}
	free(a->config.debuginfod_urls);
	a->config.debuginfod_urls = copy;
	return 0;
}

/*
 * The off-CPU and page-fault switches attach and detach their programs
 * and perf events at run time: the capabilities kept after the drop
 * (CAP_BPF, CAP_PERFMON) allow both.  Without a sampler the value is kept
 * for the next open.
 */
int
agent_set_offcpu(struct agent *a, struct control_value *v)
{
	int	sts;

	if (a->sampler && (sts = sampler_set_offcpu(a->sampler, v->u != 0)) < 0) {
		pmNotifyErr(LOG_ERR, "sampler_set_offcpu(%u): %s", v->u, strerror(-sts));
		return sts;
	}
	a->config.offcpu = v->u;
	return 0;
}

int
agent_set_offcpu_min_us(struct agent *a, struct control_value *v)
{
	int	sts;

	if (a->sampler && (sts = sampler_set_offcpu_min_us(a->sampler, v->u)) < 0)
		return sts;
	a->config.offcpu_min_us = v->u;
	return 0;
}

int
agent_set_offcpu_sample(struct agent *a, struct control_value *v)
{
	int	sts;

	if (a->sampler && (sts = sampler_set_offcpu_sample(a->sampler, v->u)) < 0)
		return sts;
	a->config.offcpu_sample = v->u;
	return 0;
}

/* Kept while offcpu is 0: the waker program runs only beside off-CPU's. */
int
agent_set_offwake(struct agent *a, struct control_value *v)
{
	int	sts;

	if (a->sampler && (sts = sampler_set_offwake(a->sampler, v->u != 0)) < 0) {
		pmNotifyErr(LOG_ERR, "sampler_set_offwake(%u): %s", v->u, strerror(-sts));
		return sts;
	}
	a->config.offwake = v->u;
	return 0;
}

int
agent_set_pagefault(struct agent *a, struct control_value *v)
{
	int	sts;

	if (a->sampler && (sts = sampler_set_pagefault(a->sampler, v->u != 0)) < 0) {
		pmNotifyErr(LOG_ERR, "sampler_set_pagefault(%u): %s", v->u, strerror(-sts));
		return sts;
	}
	a->config.pagefault = v->u;
	return 0;
}

int
agent_set_pagefault_period(struct agent *a, struct control_value *v)
{
	int	sts;

	if (a->sampler && (sts = sampler_set_pagefault_period(a->sampler, v->u)) < 0) {
		pmNotifyErr(LOG_ERR, "sampler_set_pagefault_period(%u): %s", v->u, strerror(-sts));
		return sts;
	}
	a->config.pagefault_period = v->u;
	return 0;
}

int
agent_set_interpreters(struct agent *a, struct control_value *v)
{
	int	sts;

	if (a->sampler && (sts = sampler_set_interpreters(a->sampler, v->u != 0)) < 0) {
		pmNotifyErr(LOG_ERR, "sampler_set_interpreters(%u): %s", v->u, strerror(-sts));
		return sts;
	}
	a->config.interpreters = v->u;
	return 0;
}

int
agent_set_keyframe_s(struct agent *a, struct control_value *v)
{
	int	i;

	for (i = 0; i < NPROFILES; i++)
		history_set_keyframe(a->profiles[i].history, v->u);
	a->config.keyframe_s = v->u;
	return 0;
}

static bool
still_selected(void *filter, pid_t tgid)
{
	return proc_filter_selected(filter, tgid);
}

void
agent_refresh_filter(struct agent *a)
{
	const pid_t	*pids;
	size_t		n;
	bool		changed;
	int		sts;

	if (!a->started)
		return;	/* agent_start resolves the selection it starts with */
	changed = proc_filter_resolve(a->filter, "/proc", &pids, &n);
	if (!proc_filter_all(a->filter))
		a->stats.filter_scans++;
	if (!(changed || a->filter_retry) || a->sampler == NULL)
		return;
	sts = sampler_set_filter(a->sampler, proc_filter_all(a->filter), pids, n);
	a->filter_retry = sts < 0;
	if (sts < 0)
		pmNotifyErr(LOG_ERR, "sampler_set_filter(%zu pids): %s", n, strerror(-sts));
	else if (a->unwinder)
		unwinder_on_selection(a->unwinder, still_selected, a->filter);
}

/* A program was exec'd: read its maps now if it is (or just became)
 * selected; unselected processes cost nothing more. */
static void
on_exec(struct agent *a, pid_t tgid)
{
	const pid_t	*pids;
	size_t		n;
	bool		selected;
	int		sts;

	if (proc_filter_note_exec(a->filter, "/proc", tgid, &pids, &n)) {
		sts = sampler_set_filter(a->sampler, false, pids, n);
		if (sts < 0)
			pmNotifyErr(LOG_ERR, "sampler_set_filter(exec %d): %s",
				    (int)tgid, strerror(-sts));
	}
	/* the pid keeps its start time across exec: the symbolizer must be
	 * told its maps changed */
	selected = proc_filter_selected(a->filter, tgid);
	if (selected)
		symbolizer_note_exec(a->symbolizer, tgid);
	if (a->unwinder)
		unwinder_on_exec(a->unwinder, tgid, selected);
}

static void
on_event(void *arg, enum sp_event_kind kind, pid_t tgid)
{
	struct agent	*a = arg;

	if (kind == SP_EVENT_EXEC)
		on_exec(a, tgid);
	else if (a->unwinder && kind == SP_EVENT_MAPS)
		unwinder_on_maps(a->unwinder, tgid);
	else if (a->unwinder && kind == SP_EVENT_RETRY)
		unwinder_on_retry(a->unwinder, tgid);
	else if (a->unwinder && kind == SP_EVENT_EXIT)
		unwinder_on_exit(a->unwinder, tgid);
}

void
agent_handle_execs(struct agent *a)
{
	int	sts;

	if (a->sampler == NULL)
		return;
	if ((sts = sampler_poll_events(a->sampler, on_event, a)) < 0)
		pmNotifyErr(LOG_ERR, "sampler_poll_events: %s", strerror(-sts));
}

int
agent_exec_fd(const struct agent *a)
{
	return a->sampler ? sampler_exec_fd(a->sampler) : -1;
}

int
agent_unwind_fd(const struct agent *a)
{
	return a->unwinder ? unwinder_fd(a->unwinder) : -1;
}

void
agent_handle_unwind(struct agent *a)
{
	if (a->unwinder)
		unwinder_poll(a->unwinder);
}

unsigned
agent_interval_ms(const struct agent *a)
{
	return a->config.interval_ms;
}

unsigned
agent_heatmap_slots(const struct agent *a)
{
	return a->config.heatmap_slots;
}

struct sampler *
agent_sampler(const struct agent *a)
{
	return a->sampler;
}

struct symbolizer *
agent_symbolizer(const struct agent *a)
{
	return a->symbolizer;
}

struct profile *
agent_profile(struct agent *a, int p)
{
	return &a->profiles[p];
}

void
agent_set_debuginfod_cache(struct agent *a, const char *path)
{
	a->debuginfod_cache = path;
}
