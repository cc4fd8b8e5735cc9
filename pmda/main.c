/*
 * main.c - pmdastackprof: options, start-up, and the loop that serves pmcd
 * between drains.
 *
 * libpcp_pmda's pmdaMain() only waits for pmcd, so, like the logger PMDA,
 * we keep our own loop: poll pmcd's pipe with a timeout that ends at the
 * next drain, answer every PDU as it comes, and drain on time.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "agent/agent.h"
#include "agent/control_parse.h"
#include "agent/drain.h"
#include "pcp/metrics.h"
#include "domain.h"

static volatile sig_atomic_t	quit;
static pmdaInterface		*dispatch_for_drain;

static pmLongOptions longopts[] = {
	PMDA_OPTIONS_HEADER("Options"),
	PMOPT_DEBUG,
	PMDAOPT_DOMAIN,
	PMDAOPT_LOGFILE,
	{ "frequency", 1, 'F', "HZ", "per-CPU sampling rate [default 99]" },
	{ "interval", 1, 'I', "MS", "drain interval in milliseconds [default 1000]" },
	{ "slots", 1, 's', "N", "heat map slices of a second [default 50]" },
	PMOPT_HELP,
	PMDA_OPTIONS_END
};

static pmdaOptions opts = {
	.short_options = "D:d:l:F:I:s:?",
	.long_options = longopts,
};

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static int64_t
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Options beyond the standard PMDA ones set the starting configuration. */
static void
parse_options(int argc, char **argv, pmdaInterface *dp)
{
	unsigned	v;
	int		c;

	while ((c = pmdaGetOptions(argc, argv, &opts, dp)) != EOF) {
		switch (c) {
		case 'F':
			if (control_parse_uint(opts.optarg, AGENT_FREQ_MIN, AGENT_FREQ_MAX, &v) < 0)
				pmprintf("%s: bad -F %s (1..1000)\n", pmGetProgname(), opts.optarg), opts.errors++;
			else
				agent.frequency_hz = v;
			break;
		case 'I':
			if (control_parse_uint(opts.optarg, AGENT_INTERVAL_MIN, AGENT_INTERVAL_MAX, &v) < 0)
				pmprintf("%s: bad -I %s (100..60000)\n", pmGetProgname(), opts.optarg), opts.errors++;
			else
				agent.interval_ms = v;
			break;
		case 's':
			if (control_parse_uint(opts.optarg, 1, 1000, &v) < 0 || control_check_slots(v) < 0)
				pmprintf("%s: bad -s %s (divisor of 1000)\n", pmGetProgname(), opts.optarg), opts.errors++;
			else
				agent.heatmap_slots = v;
			break;
		}
	}
	if (opts.errors) {
		pmdaUsageMessage(&opts);
		exit(1);
	}
}

/* Answer the PDUs pmcd has already sent (called during long drains). */
static void
service_pending(void)
{
	struct pollfd	pfd = { .fd = __pmdaInFd(dispatch_for_drain), .events = POLLIN };

	while (!quit && poll(&pfd, 1, 0) > 0) {
		if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			break;
		if (__pmdaMainPDU(dispatch_for_drain) < 0) {
			quit = 1;	/* pmcd has gone: finish the drain, then exit */
			break;
		}
	}
}

/* Serve pmcd until it goes away, draining every interval and taking exec
 * notifications as they come.  The next drain is computed from the last
 * one each time round, so a store into stackprof.control.interval takes
 * effect at once. */
static void
serve(pmdaInterface *dp)
{
	struct pollfd	pfd[2] = {
		{ .fd = __pmdaInFd(dp), .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	int64_t		last = now_ms();

	while (!quit) {
		int64_t	wait = last + agent.interval_ms - now_ms();
		int	sym_wait = symbolizer_timeout_ms(agent.symbolizer);
		int	n;

		/* a young process's maps are re-read until its libraries appear */
		if (sym_wait >= 0 && sym_wait < wait)
			wait = sym_wait;
		pfd[1].fd = agent_exec_fd();	/* changes if BPF is reloaded */
		n = poll(pfd, 2, wait > 0 ? (int)wait : 0);
		if (n < 0 && errno != EINTR) {
			pmNotifyErr(LOG_ERR, "poll: %s", strerror(errno));
			break;
		}
		if (n > 0 && (pfd[1].revents & POLLIN))
			agent_handle_execs();
		symbolizer_tick(agent.symbolizer);
		if (n > 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    __pmdaMainPDU(dp) < 0)
			break;	/* pmcd closed the pipe: it restarts us */
		if (now_ms() - last >= agent.interval_ms) {
			/* on schedule, unless we fell a whole interval behind */
			last = now_ms() - last >= 2 * (int64_t)agent.interval_ms ?
				now_ms() : last + agent.interval_ms;
			drain_run();
			metrics_refresh_processes();
		}
	}
}

int
main(int argc, char **argv)
{
	static char	helppath[MAXPATHLEN];
	pmdaInterface	dispatch;

	pmSetProgname(argv[0]);
	pmsprintf(helppath, sizeof(helppath), "%s/stackprof/help", pmGetConfig("PCP_PMDAS_DIR"));
	pmdaDaemon(&dispatch, PMDA_INTERFACE_7, pmGetProgname(), STACKPROF,
		   "stackprof.log", helppath);
	parse_options(argc, argv, &dispatch);

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);
	pmdaOpenLog(&dispatch);
	if (agent_init() < 0) {
		pmNotifyErr(LOG_ERR, "out of memory at start-up");
		exit(1);
	}
	metrics_init(&dispatch);
	/* before pmdaConnect: pmcd's first request waits in the pipe meanwhile */
	if (agent_start() < 0) {
		pmNotifyErr(LOG_ERR, "out of memory at start-up");
		exit(1);
	}
	pmdaConnect(&dispatch);
	dispatch_for_drain = &dispatch;
	drain_set_service(service_pending);
	serve(&dispatch);
	agent_shutdown();
	return 0;
}
