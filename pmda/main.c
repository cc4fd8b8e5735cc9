/*
 * main.c - pmdastackprof: options, start-up, and the loop that serves pmcd
 * between drains.
 *
 * libpcp_pmda's pmdaMain() only waits for pmcd, so, like the logger PMDA,
 * we keep our own loop: poll pmcd's pipe with a timeout that ends at the
 * next drain, answer every PDU as it comes, and drain on time.  The loop
 * also takes the sampler's events (execs, exits, the walker's requests)
 * and loads unwind tables as the worker finishes them.
 *
 * The agent is created here and handed to every part; each control's
 * option comes from the control table (agent/controls.h), and its value
 * from, in increasing precedence: the table's default, the command line,
 * the state file (what was stored with pmstore before a restart).
 */
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "agent/agent.h"
#include "agent/controls.h"
#include "agent/drain.h"
#include "pcp/metrics.h"
#include "privilege/privilege.h"
#include "domain.h"
#include "lib/clock.h"

/* The one directory the agent writes once it has dropped to its user. */
#define STATE_DIR	"state"
#define STATE_FILE	"stackprof.state"
#define DEBUGINFOD_CACHE "debuginfod-cache"

static volatile sig_atomic_t	quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

/* "per-CPU sampling rate in Hz, 1..1000 [default 99]" */
static char *
usage_line(const struct control *c)
{
	char		buf[64], *line;
	const char	*bounds = control_bounds(c, buf, sizeof(buf));
	size_t		len = strlen(c->doc) + strlen(bounds) + strlen(control_default_doc(c)) + 16;

	if ((line = malloc(len)) != NULL)
		pmsprintf(line, len, "%s, %s [default %s]", c->doc, bounds, control_default_doc(c));
	return line;
}

/* The PMDA's standard options, then one per control. */
static void
build_options(pmdaOptions *opts, pmLongOptions *longopts, char *shortopts)
{
	static const pmLongOptions	head[] = {
		PMDA_OPTIONS_HEADER("Options"), PMOPT_DEBUG, PMDAOPT_DOMAIN, PMDAOPT_LOGFILE,
		PMDAOPT_USERNAME,
	};
	static const pmLongOptions	tail[] = { PMOPT_HELP, PMDA_OPTIONS_END };
	size_t				i, n = 0, s;

	strcpy(shortopts, "D:d:l:U:");
	s = strlen(shortopts);
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		longopts[n++] = head[i];
	for (i = 0; i < ncontrols; i++) {
		const struct control	*c = &controls[i];

		longopts[n++] = (pmLongOptions){ c->name, 1, c->opt, c->argname, usage_line(c) };
		if (c->opt) {
			shortopts[s++] = c->opt;
			shortopts[s++] = ':';
		}
	}
	shortopts[s++] = '?';
	shortopts[s] = '\0';
	for (i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
		longopts[n++] = tail[i];
	opts->short_options = shortopts;
	opts->long_options = longopts;
}

/* The control an option letter (or, for a long-only option, its index) names. */
static const struct control *
control_of_option(const pmdaOptions *opts, int c)
{
	size_t	i;

	for (i = 0; i < ncontrols; i++)
		if (c != 0 ? controls[i].opt == c :
		    strcmp(controls[i].name, opts->long_options[opts->index].long_opt) == 0)
			return &controls[i];
	return NULL;
}

/* Options beyond the standard PMDA ones set the starting configuration;
 * the user to run as (-U, default PCP's own user) is returned. */
static const char *
parse_options(int argc, char **argv, pmdaInterface *dp, struct agent *a)
{
	static pmLongOptions	longopts[16 + 64];
	static char		shortopts[16 + 2 * 64];
	static pmdaOptions	opts;
	const struct control	*ctl;
	char			bounds[64];
	int			c;

	build_options(&opts, longopts, shortopts);
	while ((c = pmdaGetOptions(argc, argv, &opts, dp)) != EOF) {
		if ((ctl = control_of_option(&opts, c)) == NULL)
			continue;
		if (control_set_text(a, ctl, opts.optarg) < 0) {
			pmprintf("%s: bad --%s '%s': must be %s\n", pmGetProgname(), ctl->name,
				 opts.optarg, control_bounds(ctl, bounds, sizeof(bounds)));
			opts.errors++;
		}
	}
	if (opts.errors) {
		pmdaUsageMessage(&opts);
		exit(1);
	}
	return opts.username ? opts.username : pmGetConfig("PCP_USER");
}

/* Answer the PDUs pmcd has already sent (called during long drains). */
static void
service_pending(void *arg)
{
	pmdaInterface	*dp = arg;
	struct pollfd	pfd = { .fd = __pmdaInFd(dp), .events = POLLIN };

	while (!quit && poll(&pfd, 1, 0) > 0) {
		if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			break;
		if (__pmdaMainPDU(dp) < 0) {
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
serve(pmdaInterface *dp, struct agent *a, struct drain *d)
{
	struct pollfd	pfd[3] = {
		{ .fd = __pmdaInFd(dp), .events = POLLIN },
		{ .fd = -1, .events = POLLIN },		/* exec and unwind events */
		{ .fd = -1, .events = POLLIN },		/* unwind tables built */
	};
	int64_t		last = clock_mono_ms();

	while (!quit) {
		int64_t	interval = agent_interval_ms(a);
		int64_t	wait = last + interval - clock_mono_ms();
		int	sym_wait = symbolizer_timeout_ms(agent_symbolizer(a));
		int	n;

		/* a young process's maps are re-read until its libraries appear */
		if (sym_wait >= 0 && sym_wait < wait)
			wait = sym_wait;
		pfd[1].fd = agent_exec_fd(a);	/* changes if BPF is reloaded */
		pfd[2].fd = agent_unwind_fd(a);
		n = poll(pfd, 3, wait > 0 ? (int)wait : 0);
		if (n < 0 && errno != EINTR) {
			pmNotifyErr(LOG_ERR, "poll: %s", strerror(errno));
			break;
		}
		if (n > 0 && (pfd[1].revents & POLLIN))
			agent_handle_execs(a);
		if (n > 0 && (pfd[2].revents & POLLIN))
			agent_handle_unwind(a);
		symbolizer_tick(agent_symbolizer(a));
		if (n > 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    __pmdaMainPDU(dp) < 0)
			break;	/* pmcd closed the pipe: it restarts us */
		interval = agent_interval_ms(a);	/* a store may have changed it */
		if (clock_mono_ms() - last >= interval) {
			/* on schedule, unless we fell a whole interval behind */
			last = clock_mono_ms() - last >= 2 * interval ? clock_mono_ms() : last + interval;
			drain_run(d);
			metrics_after_drain(dp);
		}
	}
}

static void
fail(const char *what)
{
	pmNotifyErr(LOG_ERR, "out of memory at start-up (%s)", what);
	exit(1);
}

/*
 * Root no longer: what serving needs was set up (BPF loaded, perf events
 * attached, kallsyms opened), so run as user with the few capabilities
 * that stores and symbolization still need (privilege/privilege.h).  An
 * agent that cannot drop them does not serve.
 */
static void
drop_privileges(const char *user, const char *statedir)
{
	char	why[256];

	if (geteuid() != 0) {
		pmNotifyErr(LOG_WARNING, "not started as root: capabilities left as they are");
		return;
	}
	if (privilege_own_dir(statedir, user, why, sizeof(why)) < 0)
		pmNotifyErr(LOG_ERR, "state directory: %s; stores cannot be kept", why);
	if (privilege_drop(user, why, sizeof(why)) < 0) {
		pmNotifyErr(LOG_ERR, "cannot drop privileges: %s", why);
		exit(1);
	}
	pmNotifyErr(LOG_INFO, "running as %s with CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE, "
		    "CAP_DAC_READ_SEARCH and CAP_CHECKPOINT_RESTORE only", user);
}

int
main(int argc, char **argv)
{
	static char	helppath[MAXPATHLEN], statedir[MAXPATHLEN], statepath[MAXPATHLEN];
	static char	cachepath[MAXPATHLEN];
	const char	*user;
	pmdaInterface	dispatch;
	struct agent	*a;
	struct drain	*d;

	/* One malloc arena for every thread.  A thread's own arena keeps its
	 * high-water mark resident: malloc_trim gives back the top of the
	 * main arena only, and the unwind worker's peak is a whole libdw
	 * build (10 MB for libLLVM-15), kept for the agent's life.  In the
	 * main arena the trim once a drain after builds returns it. */
	mallopt(M_ARENA_MAX, 1);
	pmSetProgname(argv[0]);
	pmsprintf(helppath, sizeof(helppath), "%s/stackprof/help", pmGetConfig("PCP_PMDAS_DIR"));
	pmsprintf(statedir, sizeof(statedir), "%s/stackprof/" STATE_DIR, pmGetConfig("PCP_PMDAS_DIR"));
	pmsprintf(statepath, sizeof(statepath), "%s/" STATE_FILE, statedir);
	pmsprintf(cachepath, sizeof(cachepath), "%s/" DEBUGINFOD_CACHE, statedir);
	pmdaDaemon(&dispatch, PMDA_INTERFACE_7, pmGetProgname(), STACKPROF,
		   "stackprof.log", helppath);
	if ((a = agent_new()) == NULL || controls_reset(a) < 0) {
		fprintf(stderr, "%s: out of memory\n", pmGetProgname());
		exit(1);
	}
	user = parse_options(argc, argv, &dispatch, a);

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);
	pmdaOpenLog(&dispatch);
	controls_load(a, statepath);
	if ((d = drain_new(a)) == NULL)
		fail("drain");
	if (metrics_init(&dispatch, a) < 0)
		fail("metric tables");
	/* before pmdaConnect: pmcd's first request waits in the pipe meanwhile */
	if (agent_start(a, true) < 0)
		fail("symbolizer");
	drop_privileges(user, statedir);
	agent_set_debuginfod_cache(a, cachepath);	/* in statedir: ours after the drop */
	agent_start_threads(a);
	pmdaConnect(&dispatch);
	drain_set_service(d, service_pending, &dispatch);
	serve(&dispatch, a, d);
	drain_free(d);
	metrics_free(&dispatch);
	agent_free(a);
	return 0;
}
