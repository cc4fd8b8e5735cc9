/*
 * agent.c - the PMDA's state and the only code that changes its knobs.
 *
 * Each setter is called after control.c validated the value; it applies the
 * change to the sampler first and updates the state only if that worked,
 * so a refused change leaves everything as it was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "agent.h"
#include "control_parse.h"
#include "drain.h"

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

struct agent agent = {
	.enabled = true,
	.frequency_hz = AGENT_FREQ_DEFAULT,
	.interval_ms = AGENT_INTERVAL_DEFAULT,
	.heatmap_slots = AGENT_SLOTS_DEFAULT,
};

static int
open_sampler(void)
{
	struct sampler_config	cfg = {
		.frequency_hz = agent.frequency_hz,
		.interval_ms = agent.interval_ms,
		.heatmap_slots = agent.heatmap_slots,
	};
	int			sts;

	if ((sts = sampler_open(&agent.sampler, &cfg)) < 0) {
		agent.sampler = NULL;
		agent.sampler_error = sts;
		pmNotifyErr(LOG_ERR, "cannot load the BPF sampler: %s", strerror(-sts));
		return sts;
	}
	agent.sampler_error = 0;
	if (!agent.enabled)
		sampler_set_enabled(agent.sampler, false);
	return 0;
}

int
agent_init(void)
{
	agent.process_regex = strdup("");
	agent.pids_text = strdup("");
	agent.filter = proc_filter_new();
	agent.window = window_new(WINDOW_EXPIRE_S);
	if (!agent.process_regex || !agent.pids_text || !agent.filter || !agent.window)
		return -ENOMEM;
	agent.interval_frequency_hz = agent.frequency_hz;
	return 0;
}

static double
seconds_since(const struct timespec *t0)
{
	struct timespec	t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

int
agent_start(void)
{
	struct timespec	t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((agent.symbolizer = symbolizer_new(SYMBOL_CACHE_BYTES)) == NULL)
		return -ENOMEM;
	/* a PMDA without BPF still serves its controls and says why in the log */
	open_sampler();
	agent_refresh_filter();
	pmNotifyErr(LOG_INFO, "started in %.2f s: BPF sampler %s, %u Hz, interval %u ms",
		    seconds_since(&t0), agent.sampler ? "loaded" : "NOT loaded",
		    agent.frequency_hz, agent.interval_ms);
	return 0;
}

void
agent_shutdown(void)
{
	if (agent.sampler)
		sampler_close(agent.sampler);
	agent.sampler = NULL;
	symbolizer_free(agent.symbolizer);
	window_free(agent.window);
	proc_filter_free(agent.filter);
	free(agent.process_regex);
	free(agent.pids_text);
}

int
agent_set_enabled(bool enabled)
{
	int	sts;

	if (agent.sampler == NULL && enabled && (sts = open_sampler()) < 0)
		return sts;
	if (agent.sampler && (sts = sampler_set_enabled(agent.sampler, enabled)) < 0) {
		pmNotifyErr(LOG_ERR, "sampler_set_enabled(%d): %s", enabled, strerror(-sts));
		return sts;
	}
	agent.enabled = enabled;
	return 0;
}

/* Rate and interval size the BPF maps: the sampler may need new ones. */
static int
reconfigure(unsigned hz, unsigned interval_ms)
{
	struct sampler_config	cfg = {
		.frequency_hz = hz,
		.interval_ms = interval_ms,
		.heatmap_slots = agent.heatmap_slots,
	};
	int			sts;

	if (agent.sampler == NULL)
		return 0;
	sts = sampler_reconfigure(agent.sampler, &cfg, drain_keep_stack, NULL);
	if (sts < 0)
		pmNotifyErr(LOG_ERR, "sampler_reconfigure(%u Hz, %u ms): %s",
			    hz, interval_ms, strerror(-sts));
	return sts;
}

int
agent_set_frequency(unsigned hz)
{
	int	sts;

	if ((sts = reconfigure(hz, agent.interval_ms)) < 0)
		return sts;
	agent.frequency_hz = hz;
	return 0;
}

int
agent_set_interval(unsigned ms)
{
	int	sts;

	if ((sts = reconfigure(agent.frequency_hz, ms)) < 0)
		return sts;
	/* main.c reads it when it arms the next drain */
	agent.interval_ms = ms;
	return 0;
}

int
agent_set_heatmap_slots(unsigned slots)
{
	int	sts;

	if (agent.sampler && (sts = sampler_set_heatmap_slots(agent.sampler, slots)) < 0) {
		pmNotifyErr(LOG_ERR, "sampler_set_heatmap_slots(%u): %s", slots, strerror(-sts));
		return sts;
	}
	agent.heatmap_slots = slots;
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
agent_set_process_regex(const char *regex)
{
	char	*old = strdup(agent.process_regex);
	int	sts;

	if (old == NULL)
		return -ENOMEM;
	if ((sts = proc_filter_set_regex(agent.filter, regex)) < 0 ||
	    (sts = replace_text(&agent.process_regex, regex)) < 0) {
		proc_filter_set_regex(agent.filter, old);
		free(old);
		return sts;
	}
	free(old);
	agent_refresh_filter();
	return 0;
}

int
agent_set_pids(const char *text)
{
	pid_t	*pids;
	size_t	n;
	int	sts;

	if ((sts = control_parse_pids(text, &pids, &n)) < 0)
		return sts;
	if ((sts = replace_text(&agent.pids_text, text)) == 0)
		sts = proc_filter_set_pids(agent.filter, pids, n);
	free(pids);
	if (sts == 0)
		agent_refresh_filter();
	return sts;
}

void
agent_refresh_filter(void)
{
	static bool	retry;	/* the sampler refused the last set: send again */
	const pid_t	*pids;
	size_t		n;
	bool		changed;
	int		sts;

	changed = proc_filter_resolve(agent.filter, "/proc", &pids, &n);
	if (!proc_filter_all(agent.filter))
		agent.stats.filter_scans++;
	if (!(changed || retry) || agent.sampler == NULL)
		return;
	sts = sampler_set_filter(agent.sampler, proc_filter_all(agent.filter), pids, n);
	retry = sts < 0;
	if (sts < 0)
		pmNotifyErr(LOG_ERR, "sampler_set_filter(%zu pids): %s", n, strerror(-sts));
}

/* A program was exec'd: read its maps now if it is (or just became)
 * selected; unselected processes cost nothing more. */
static void
on_exec(void *arg, pid_t tgid)
{
	const pid_t	*pids;
	size_t		n;
	int		sts;

	(void)arg;
	if (proc_filter_note_exec(agent.filter, "/proc", tgid, &pids, &n)) {
		sts = sampler_set_filter(agent.sampler, false, pids, n);
		if (sts < 0)
			pmNotifyErr(LOG_ERR, "sampler_set_filter(exec %d): %s",
				    (int)tgid, strerror(-sts));
	}
	/* the pid keeps its start time across exec: the symbolizer must be
	 * told its maps changed */
	if (proc_filter_selected(agent.filter, tgid))
		symbolizer_note_exec(agent.symbolizer, tgid);
}

void
agent_handle_execs(void)
{
	int	sts;

	if (agent.sampler == NULL)
		return;
	if ((sts = sampler_poll_execs(agent.sampler, on_exec, NULL)) < 0)
		pmNotifyErr(LOG_ERR, "sampler_poll_execs: %s", strerror(-sts));
}

int
agent_exec_fd(void)
{
	return agent.sampler ? sampler_exec_fd(agent.sampler) : -1;
}
