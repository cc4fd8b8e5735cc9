/*
 * pmflame - flame graphs from pcp-stackprof: live from pmcd hosts, from
 * pmlogger archives over any time range, or from folded stacks.
 *
 *	source (source_folded / source_live / source_archive)
 *	  -> selection (select.c: --process, --pid, --event, --total, ...)
 *	  -> tree (tree.c) -> emitters (emit_*.c, via the table in output.c)
 *	  -> sink (sink_dir.c, sink_s3.c) + site (site.c)
 *
 * This file only turns the command line into those parts and runs them.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <pcp/pmapi.h>
#include "publish/output.h"
#include "profile/select.h"
#include "publish/sink.h"
#include "source/source.h"
#include "source/source_heatmap.h"

static pmLongOptions longopts[] = {
	PMAPI_OPTIONS_HEADER("Sources"),
	PMOPT_HOST,
	PMOPT_ARCHIVE,
	{ "input", 1, 'i', "FILE", "read folded stacks from FILE, - for stdin" },
	PMOPT_START,
	PMOPT_FINISH,
	PMOPT_ORIGIN,
	PMOPT_INTERVAL,
	{ "duration", 1, 0, "SECONDS", "live: stop after this long (default: at SIGINT/SIGTERM)" },
	{ "frequency", 1, 0, "HZ", "sampling rate behind -i input, for microseconds (default 99)" },
	PMOPT_TIMEZONE,
	PMOPT_HOSTZONE,
	PMAPI_OPTIONS_HEADER("Selection"),
	{ "process", 1, 0, "NAME|REGEX", "only processes whose whole name matches" },
	{ "pid", 1, 0, "PID[,PID...]", "only these process ids" },
	{ "event", 1, 0, "EVENT", "profile event type (default on-cpu)" },
	{ "total", 0, 0, 0, "host view: Total -> [p] process -> [t] thread -> frames" },
	{ "multi-instance", 0, 0, 0, "one profile per process" },
	PMAPI_OPTIONS_HEADER("Output"),
	{ "format", 1, 0, "LIST", "comma list of json, svg, folded, pprof, speedscope, grafana, heatmap (default svg)" },
	{ "output", 1, 'o', "DIR|s3://BUCKET/PREFIX", "write a browsable site there (default: stdout)" },
	{ "period", 1, 0, "SECONDS", "live: write a profile of every period" },
	{ "title", 1, 0, "TEXT", "SVG title (default \"Flame Graph\")" },
	{ "width", 1, 0, "PIXELS", "SVG width (default 1200)" },
	{ "minwidth", 1, 0, "PIXELS", "omit narrower SVG frames (default 0.1)" },
	{ "inverted", 0, 0, 0, "icicle graph: root at the top" },
	{ "flush", 0, 0, 0, "deliver S3 uploads spooled by earlier runs, then exit" },
	PMAPI_OPTIONS_HEADER("General options"),
	PMOPT_DEBUG,
	PMOPT_VERSION,
	PMOPT_HELP,
	PMAPI_OPTIONS_END
};

static pmOptions opts = {
	.flags = PM_OPTFLAG_MULTI | PM_OPTFLAG_STDOUT_TZ,
	.short_options = "a:D:h:i:o:O:S:t:T:VZ:z?",
	.long_options = longopts,
	.short_usage = "[options]",
};

struct config {
	const char		*input;
	const char		*output;
	const char		*formats;
	double			duration, period;
	unsigned		frequency;
	bool			flush;
	struct select_options	select;
	uint32_t		*pids;
	struct output_context	out;
};

static int
parse_seconds(const char *opt, const char *arg, double *v)
{
	char	*end;

	errno = 0;
	*v = strtod(arg, &end);
	if (errno || end == arg || *end != '\0' || !(*v > 0) || *v > 1e9) {
		fprintf(stderr, "%s: --%s: \"%s\" is not a positive number of seconds\n",
			pmGetProgname(), opt, arg);
		return -1;
	}
	return 0;
}

static int
parse_uint(const char *opt, const char *arg, unsigned long max, unsigned long *v)
{
	char	*end;

	errno = 0;
	*v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end != '\0' || *v == 0 || *v > max || arg[0] == '-') {
		fprintf(stderr, "%s: --%s: \"%s\" is not a number from 1 to %lu\n",
			pmGetProgname(), opt, arg, max);
		return -1;
	}
	return 0;
}

static int
parse_pids(struct config *c, const char *arg)
{
	char		*copy = strdup(arg), *w, *save = NULL;
	unsigned long	v;
	size_t		n = 0;
	int		sts = 0;

	c->pids = calloc(strlen(arg) / 2 + 2, sizeof(*c->pids));
	if (copy == NULL || c->pids == NULL) {
		free(copy);
		return -1;
	}
	for (w = strtok_r(copy, ",", &save); w && sts == 0; w = strtok_r(NULL, ",", &save))
		if ((sts = parse_uint("pid", w, UINT32_MAX, &v)) == 0)
			c->pids[n++] = (uint32_t)v;
	free(copy);
	if (n == 0 && sts == 0) {
		fprintf(stderr, "%s: --pid: no process id given\n", pmGetProgname());
		sts = -1;
	}
	c->select.pids = c->pids;
	c->select.npids = n;
	return sts;
}

/* One long option without a short letter; returns -1 on a bad value. */
static int
long_option(struct config *c, const char *name, const char *arg)
{
	unsigned long	v;
	double		d;

	if (strcmp(name, "duration") == 0)
		return parse_seconds(name, arg, &c->duration);
	if (strcmp(name, "period") == 0)
		return parse_seconds(name, arg, &c->period);
	if (strcmp(name, "frequency") == 0) {
		if (parse_uint(name, arg, 1000000, &v) < 0)
			return -1;
		c->frequency = (unsigned)v;
	} else if (strcmp(name, "process") == 0)
		c->select.process = arg;
	else if (strcmp(name, "pid") == 0)
		return parse_pids(c, arg);
	else if (strcmp(name, "event") == 0)
		c->select.event = arg;
	else if (strcmp(name, "total") == 0)
		c->select.total = true;
	else if (strcmp(name, "multi-instance") == 0)
		c->select.multi_instance = true;
	else if (strcmp(name, "format") == 0)
		c->formats = arg;
	else if (strcmp(name, "title") == 0)
		c->out.emit.title = arg;
	else if (strcmp(name, "width") == 0) {
		if (parse_uint(name, arg, 100000, &v) < 0)
			return -1;
		c->out.emit.width = (unsigned)v;
	} else if (strcmp(name, "minwidth") == 0) {
		char	*end;

		d = strtod(arg, &end);
		if (end == arg || *end != '\0' || !(d >= 0) || d > 100000) {
			fprintf(stderr, "%s: --minwidth: \"%s\" is not a width in pixels\n",
				pmGetProgname(), arg);
			return -1;
		}
		c->out.emit.minwidth = d;
	} else if (strcmp(name, "inverted") == 0)
		c->out.emit.inverted = true;
	else if (strcmp(name, "flush") == 0)
		c->flush = true;
	return 0;
}

static int
parse_args(int argc, char **argv, struct config *c)
{
	int	opt;

	while ((opt = pmGetOptions(argc, argv, &opts)) != EOF) {
		switch (opt) {
		case 'i':
			c->input = opts.optarg;
			break;
		case 'o':
			c->output = opts.optarg;
			break;
		case 0:
			if (long_option(c, longopts[opts.index].long_opt, opts.optarg) < 0)
				opts.errors++;
			break;
		default:
			opts.errors++;
			break;
		}
	}
	if (opts.flags & PM_OPTFLAG_EXIT)
		return 1;
	if (opts.errors == 0 && opts.optind < argc) {
		fprintf(stderr, "%s: unexpected argument \"%s\"\n", pmGetProgname(), argv[opts.optind]);
		opts.errors++;
	}
	if (opts.errors == 0 && c->input && (opts.nhosts || opts.narchives)) {
		fprintf(stderr, "%s: -i cannot be combined with -h or -a\n", pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && c->input && c->select.npids) {
		fprintf(stderr, "%s: --pid needs -h or -a: folded stacks carry no process ids\n",
			pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && c->period > 0 && (c->input || opts.narchives)) {
		fprintf(stderr, "%s: --period needs a live source (-h), not -i or -a\n",
			pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && c->period > 0 && c->output == NULL) {
		fprintf(stderr, "%s: --period writes a profile per period: give -o DIR\n",
			pmGetProgname());
		opts.errors++;
	}
	if (opts.errors) {
		pmUsageMessage(&opts);
		return -1;
	}
	return 0;
}

static void
on_signal(int sig)
{
	(void)sig;
	source_stop = 1;
}

/* The state the source callbacks need to turn windows into outputs. */
struct run {
	struct config		*config;
	struct selection	*sel;
	unsigned		written;	/* profiles stored so far */
	int			failed;
	char			err[512];
};

/* A sample from a pmapi source: the same arg reaches add_sample and write_window. */
static int
add_sample(void *arg, const struct stack_sample *s)
{
	return selection_add(((struct run *)arg)->sel, s);
}

/* A window ended: take its profiles and write them. */
static int
write_window(void *arg, const struct window *w)
{
	struct run	*r = arg;
	struct profile	*p;
	size_t		n, i;

	if (selection_take(r->sel, &p, &n) < 0) {
		snprintf(r->err, sizeof(r->err), "out of memory building profiles");
		return -1;
	}
	for (i = 0; i < n; i++) {
		p[i].start = w->start;
		p[i].end = w->end;
	}
	if (n > 0 && r->config->output && r->config->out.sink == NULL &&
	    (r->config->out.sink = sink_open(r->config->output, r->err, sizeof(r->err))) == NULL) {
		profiles_free(p, n);
		return -1;
	}
	if (n > 0 && output_write(&r->config->out, p, n, r->err, sizeof(r->err)) < 0) {
		profiles_free(p, n);
		return -1;
	}
	r->written += (unsigned)n;
	profiles_free(p, n);
	return 0;
}

static int
run_folded(struct config *c, struct run *r)
{
	const char	*slash, *label;
	char		host[256], *dot;
	struct window	w = { 0 };
	struct stat	st;

	/* the file's name labels the profiles, its mtime dates them */
	if (strcmp(c->input, "-") == 0) {
		label = "stdin";
		w.start = (double)time(NULL);
	} else {
		label = (slash = strrchr(c->input, '/')) ? slash + 1 : c->input;
		if (stat(c->input, &st) == 0)
			w.start = (double)st.st_mtime;
	}
	snprintf(host, sizeof(host), "%s", label);
	if ((dot = strrchr(host, '.')) != NULL && dot != host)
		*dot = '\0';
	w.end = w.start;
	c->out.source = "folded stacks";
	if (source_folded_read(c->input, host, c->frequency, selection_add, r->sel,
			       r->err, sizeof(r->err)) < 0)
		return -1;
	if (selection_samples(r->sel) == 0) {
		snprintf(r->err, sizeof(r->err), "%s: no stacks%s", c->input,
			 c->select.process ? " of the selected processes" : "");
		return -1;
	}
	return write_window(r, &w);
}

/*
 * Every host answered: open the output now, so that a live run fails
 * before profiling for an hour, but an unknown host creates nothing.
 */
static int
open_output(void *arg, char *err, size_t errlen)
{
	struct run	*r = arg;

	if (r->config->output == NULL)
		return 0;
	r->config->out.sink = sink_open(r->config->output, err, errlen);
	return r->config->out.sink ? 0 : -1;
}

static int
run_live(struct config *c, struct run *r, const struct event_metrics *m)
{
	struct live_options	lo = {
		.hosts = opts.hosts, .nhosts = opts.nhosts,
		.interval = opts.interval.tv_sec + opts.interval.tv_usec / 1e6,
		.duration = c->duration, .period = c->period, .metrics = m,
		.ready = open_output,
	};

	if (lo.interval <= 0)
		lo.interval = 1.0;
	c->out.source = "pmcd";
	if (source_live_run(&lo, add_sample, write_window, r, r->err, sizeof(r->err)) < 0)
		return -1;
	if (r->written == 0) {
		snprintf(r->err, sizeof(r->err), "no stack samples%s during the run "
			 "(is stackprof.control.enabled 1?)",
			 c->select.process || c->select.npids ? " of the selected processes" : "");
		return -1;
	}
	return 0;
}

static int
run_archives(struct config *c, struct run *r, const struct event_metrics *m)
{
	struct archive_options	ao = {
		.archives = opts.archives, .narchives = opts.narchives,
		.start = opts.start_optarg, .finish = opts.finish_optarg,
		.align = opts.align_optarg, .origin = opts.origin_optarg,
		.timezone = opts.timezone, .hostzone = opts.tzflag, .metrics = m,
	};

	c->out.source = "archive";
	if (source_archive_read(&ao, add_sample, write_window, r, r->err, sizeof(r->err)) < 0)
		return -1;
	if (r->written == 0) {
		snprintf(r->err, sizeof(r->err), "no stack samples in the time range%s",
			 c->select.process || c->select.npids ? " for the selected processes" : "");
		return -1;
	}
	return 0;
}

/* --format heatmap: its own pipeline (client/source/source_heatmap.c) over the
 * same archives or hosts, sink and selection. */
static int
run_heatmap(struct config *c, struct run *r, const struct event_metrics *m)
{
	struct heatmap_run_options	o = {
		.archives = opts.archives, .narchives = opts.narchives,
		.start = opts.start_optarg, .finish = opts.finish_optarg,
		.align = opts.align_optarg, .origin = opts.origin_optarg,
		.timezone = opts.timezone, .hostzone = opts.tzflag,
		.hosts = opts.hosts, .nhosts = opts.nhosts,
		.interval = opts.interval.tv_sec + opts.interval.tv_usec / 1e6,
		.duration = c->duration, .metrics = m,
		.filter = c->select.process || c->select.npids ? r->sel : NULL,
		.output = c->output, .sink = &c->out.sink,
		.title = c->out.emit.title, .width = c->out.emit.width,
	};

	/* emit_options_default's title names a flame graph */
	if (o.title && strcmp(o.title, "Flame Graph") == 0)
		o.title = NULL;
	return heatmap_run(&o, r->err, sizeof(r->err));
}

/* Take "heatmap" out of --format; refuse what it cannot be combined with. */
static int
heatmap_wanted(struct config *c, char **rest, bool *heat)
{
	*heat = c->formats && heatmap_format_take(c->formats, rest);
	if (!*heat)
		return 0;
	if (c->input)
		fprintf(stderr, "%s: --format heatmap needs -a or -h: folded stacks have no times\n",
			pmGetProgname());
	else if (opts.narchives == 0 && (*rest || c->period > 0))
		fprintf(stderr, "%s: live --format heatmap takes no other format and no --period\n",
			pmGetProgname());
	else if (*rest && c->output == NULL)
		fprintf(stderr, "%s: --format heatmap with other formats: give -o DIR\n",
			pmGetProgname());
	else
		return 0;
	free(*rest);
	*rest = NULL;
	return -1;
}

static int
run(struct config *c)
{
	const struct event_metrics	*m = NULL;
	struct run			r = { .config = c };
	char				err[512], *rest = NULL;
	bool				heat;
	int				sts;

	if (heatmap_wanted(c, &rest, &heat) < 0)
		return 1;
	if (c->select.event == NULL)
		c->select.event = "on-cpu";
	c->out.emit.event = c->select.event;	/* the units pprof & co. name */
	if (!c->input && (m = event_metrics_find(c->select.event)) == NULL) {
		fprintf(stderr, "%s: --event %s: stackprof exports no such event (known: on-cpu)\n",
			pmGetProgname(), c->select.event);
		return 1;
	}
	if ((!heat || rest) &&
	    output_formats_parse(heat ? rest : c->formats ? c->formats : "svg", c->out.formats,
				 &c->out.nformats, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", pmGetProgname(), err);
		free(rest);
		return 1;
	}
	free(rest);
	if ((r.sel = selection_new(&c->select, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s: %s\n", pmGetProgname(), err);
		selection_free(r.sel);
		return 1;
	}
	sts = heat ? run_heatmap(c, &r, m) : 0;
	if (sts < 0 || (heat && c->out.nformats == 0))
		;	/* the heat map was all that was asked for, or it failed */
	else if (c->input)
		sts = run_folded(c, &r);
	else if (opts.narchives > 0)
		sts = run_archives(c, &r, m);
	else
		sts = run_live(c, &r, m);
	if (sts < 0)
		fprintf(stderr, "%s: %s\n", pmGetProgname(), r.err);
	sink_close(c->out.sink);
	selection_free(r.sel);
	return sts < 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct config		c = { .frequency = 99 };
	struct sigaction	sa = { .sa_handler = on_signal };
	char			err[512];
	int			sts;

	emit_options_default(&c.out.emit);
	if ((sts = parse_args(argc, argv, &c)) != 0)
		return sts < 0 ? 1 : 0;
	if (c.flush) {
		sts = sink_s3_flush_spool(err, sizeof(err));
		if (sts < 0) {
			fprintf(stderr, "%s: --flush: %s\n", pmGetProgname(), err);
			return 1;
		}
		printf("%d objects still spooled\n", sts);
		return sts > 0 ? 1 : 0;
	}
	if (!c.input && opts.nhosts == 0 && opts.narchives == 0) {
		/* as every PCP tool: no -h, no -a means the local pmcd */
		static char	*local[] = { "local:" };

		opts.hosts = local;
		opts.nhosts = 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sts = run(&c);
	free(c.pids);
	return sts;
}
