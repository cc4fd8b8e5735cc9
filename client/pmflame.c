/*
 * pmflame - flame graphs from pcp-stackprof: live from pmcd hosts, from
 * pmlogger archives over any time range, or from folded stacks.
 *
 *	source (source_folded / source_live / source_archive, one fetch.c)
 *	  -> selection (select.c: --process, --pid, --event, --total, ...)
 *	     -> trees (tree.c), and heat maps per host (heatmaps.c)
 *	  -> emitters (emit_*.c, via the format table in output.c)
 *	  -> sink (sink_dir.c, sink_s3.c) + site (site.c)
 *
 * This file only turns the command line into those parts and runs them.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <pcp/pmapi.h>
#include "publish/output.h"
#include "common/gaps.h"
#include "common/util.h"
#include "emit/emit_csp.h"
#include "emit/emit_export.h"
#include "emit/view_values.h"
#include "profile/heatmaps.h"
#include "profile/select.h"
#include "publish/sink.h"
#include "publish/site.h"
#include "source/source.h"

#ifndef STACKPROF_VERSION	/* GNUmakefile passes git describe's */
#define STACKPROF_VERSION "unknown"
#endif

static pmLongOptions longopts[] = {
	PMAPI_OPTIONS_HEADER("Sources"),
	PMOPT_HOST,
	PMOPT_ARCHIVE,
	{ "input", 1, 'i', "FILE", "read folded stacks from FILE, - for stdin" },
	{ "series", 1, 0, "URL", "pmproxy's REST (pmseries): the archived history loaded into Redis" },
	{ "query", 1, 0, "EXPR", "--series: a pmseries expression naming the history series to read" },
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
	{ "merge-hosts", 0, 0, 0, "one profile per process name across every host (host \"fleet\")" },
	{ "lines", 0, 0, 0, "a Python frame per line, with its file and line in pprof and speedscope (default: per function)" },
	PMAPI_OPTIONS_HEADER("Differential flame graphs"),
	{ "baseline", 1, 0, "SOURCE", "compare with FILE (folded), archive:PATH[,PATH...] or range:START,END (-a's archives)" },
	{ "normalize", 0, 0, 0, "scale the baseline to the same total (difffolded.pl -n)" },
	{ "negate", 0, 0, 0, "SVG widths from the baseline: frames only it has show" },
	PMAPI_OPTIONS_HEADER("Output"),
	{ "format", 1, 0, "LIST", "comma list of json, svg, folded, pprof, speedscope, grafana, heatmap (default svg)" },
	{ "output", 1, 'o', "DIR|s3://BUCKET/PREFIX", "write a browsable site there (default: stdout)" },
	{ "period", 1, 0, "SECONDS", "live: write a profile of every period" },
	{ "title", 1, 0, "TEXT", "SVG title (default \"Flame Graph\")" },
	{ "width", 1, 0, "PIXELS", "SVG width (default 1200)" },
	{ "minwidth", 1, 0, "PIXELS", "omit narrower SVG frames (default 0.1)" },
	{ "inverted", 0, 0, 0, "icicle graph: root at the top" },
	{ "icicle", 0, 0, 0, "the same as --inverted" },
	{ "full-height", 0, 0, 0, "SVG: draw every level (default: fold towers past 50 levels)" },
	{ "flush", 0, 0, 0, "deliver S3 uploads spooled by earlier runs, then exit" },
	{ "csp", 0, 0, 0, "print the Content-Security-Policy header the SVGs need from a web server, then exit" },
	{ "partial", 0, 0, 0, "damaged archives: exit 0 with the intact part (default: exit 3)" },
	PMAPI_OPTIONS_HEADER("General options"),
	PMOPT_DEBUG,
	PMOPT_VERSION,
	PMOPT_HELP,
	PMAPI_OPTIONS_END
};

/* -V is ours: libpcp's would print PCP's version, through a pmprintf
 * buffer that nothing flushes.  -S, -T and -O too: libpcp takes them for
 * archives only, and --series reads a range as well (parse_args gives
 * them back to libpcp's fields). */
static int
override(int opt, pmOptions *o)
{
	(void)o;
	return opt == 'V' || opt == 'S' || opt == 'T' || opt == 'O';
}

static pmOptions opts = {
	.flags = PM_OPTFLAG_MULTI | PM_OPTFLAG_STDOUT_TZ,
	.short_options = "a:D:h:i:o:O:S:t:T:VZ:z?",
	.long_options = longopts,
	.short_usage = "[options]",
	.override = override,
};

/* Exit status (pmflame.1, EXIT STATUS): 1 is any error, and */
#define EXIT_PARTIAL	3	/* written, of the intact part of a damaged archive */
#define EXIT_NOTHING	4	/* nothing matched: no samples in the range or of the selection */
#define EXIT_SPOOLED	5	/* written, but S3 uploads wait in the spool, not delivered */

struct config {
	const char		*input;
	const char		*series;	/* --series URL */
	const char		*query;		/* --query EXPR */
	const char		*baseline;	/* --baseline SOURCE */
	const char		*output;
	const char		*formats;
	double			duration, period;
	unsigned		frequency;
	bool			flush;
	bool			csp;
	bool			partial;	/* --partial: damaged archives are no error */
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
	} else if (strcmp(name, "series") == 0)
		c->series = arg;
	else if (strcmp(name, "query") == 0)
		c->query = arg;
	else if (strcmp(name, "process") == 0)
		c->select.process = arg;
	else if (strcmp(name, "pid") == 0)
		return parse_pids(c, arg);
	else if (strcmp(name, "event") == 0)
		c->select.event = arg;
	else if (strcmp(name, "total") == 0)
		c->select.total = true;
	else if (strcmp(name, "multi-instance") == 0)
		c->select.multi_instance = true;
	else if (strcmp(name, "merge-hosts") == 0)
		c->select.merge_hosts = true;
	else if (strcmp(name, "lines") == 0)
		c->select.lines = true;
	else if (strcmp(name, "baseline") == 0)
		c->baseline = c->out.baseline = arg;
	else if (strcmp(name, "normalize") == 0)
		c->select.normalize = true;
	else if (strcmp(name, "negate") == 0)
		c->out.emit.negate = true;
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
	} else if (strcmp(name, "inverted") == 0 || strcmp(name, "icicle") == 0)
		c->out.emit.inverted = true;
	else if (strcmp(name, "full-height") == 0)
		c->out.emit.full_height = true;
	else if (strcmp(name, "flush") == 0)
		c->flush = true;
	else if (strcmp(name, "csp") == 0)
		c->csp = true;
	else if (strcmp(name, "partial") == 0)
		c->partial = true;
	return 0;
}

static int
parse_args(int argc, char **argv, struct config *c)
{
	char	*window[3] = { NULL, NULL, NULL };	/* -S -T -O */
	int	opt;

	while ((opt = pmGetOptions(argc, argv, &opts)) != EOF) {
		switch (opt) {
		case 'S':
		case 'T':
		case 'O':
			window[opt == 'S' ? 0 : opt == 'T' ? 1 : 2] = opts.optarg;
			break;
		case 'i':
			c->input = opts.optarg;
			break;
		case 'o':
			c->output = opts.optarg;
			break;
		case 'V':
			printf("%s version %s (pcp-stackprof), PCP %s\n", pmGetProgname(),
			       STACKPROF_VERSION, pmGetConfig("PCP_VERSION"));
			return 1;
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
	opts.start_optarg = window[0];
	opts.finish_optarg = window[1];
	opts.origin_optarg = window[2];
	if (opts.errors == 0 && (window[0] || window[1] || window[2]) && opts.narchives == 0 &&
	    !c->series) {
		fprintf(stderr, "%s: -S, -T and -O need -a or --series (a time range of the "
			"past)\n", pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && opts.optind < argc) {
		fprintf(stderr, "%s: unexpected argument \"%s\"\n", pmGetProgname(), argv[opts.optind]);
		opts.errors++;
	}
	if (opts.errors == 0 && c->input && (opts.nhosts || opts.narchives)) {
		fprintf(stderr, "%s: -i cannot be combined with -h or -a\n", pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && c->series && (c->input || opts.narchives)) {
		fprintf(stderr, "%s: --series cannot be combined with -i or -a\n", pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && c->query && !c->series) {
		fprintf(stderr, "%s: --query needs --series URL\n", pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && c->query && opts.nhosts) {
		fprintf(stderr, "%s: --query or -h: put the hostname in the expression\n",
			pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && c->series && opts.tzflag) {
		fprintf(stderr, "%s: -z needs -a: pmseries keeps no archive timezone (give -Z)\n",
			pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && c->input && c->select.npids) {
		fprintf(stderr, "%s: --pid needs -h or -a: folded stacks carry no process ids\n",
			pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && c->period > 0 && (c->input || opts.narchives || c->series)) {
		fprintf(stderr, "%s: --period needs a live source (-h), not -i, -a or --series\n",
			pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && c->period > 0 && c->output == NULL) {
		fprintf(stderr, "%s: --period writes a profile per period: give -o DIR\n",
			pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && c->baseline && c->series) {
		fprintf(stderr, "%s: --baseline compares -i or -a sources, not --series\n",
			pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && c->baseline && !c->input && opts.narchives == 0) {
		fprintf(stderr, "%s: --baseline compares -i or -a sources, not live hosts\n",
			pmGetProgname());
		opts.errors++;
	}
	if (opts.errors == 0 && !c->baseline && (c->select.normalize || c->out.emit.negate)) {
		fprintf(stderr, "%s: --normalize and --negate need --baseline\n", pmGetProgname());
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
	struct selection	*sel;		/* flame graphs; the heat maps' filter */
	struct heatmaps		*heat;		/* NULL: no heat map asked for */
	bool			flames;		/* some format renders flame trees */
	bool			live;
	bool			one_window;	/* archives, --total/--merge-hosts: the hosts'
						 * windows make one (the fleet's) */
	struct window		fleet;		/* their union so far */
	bool			partial;	/* a damaged archive: what was intact */
	struct profile		*held;		/* no -o: the run's profiles, written */
	size_t			nheld;		/* at its end if they make one output */
	unsigned		written;	/* flame profiles so far */
	bool			nothing;	/* failed for want of samples, not an error */
	struct gap_list		gaps;		/* what the open window(s) miss */
	struct view_values	*view;		/* archives to a site: each range's values
						 * for live.html (NULL: none) */
	char			err[512];
};

/* A heat map's -E2BIG, said with what to do about it. */
static int
heat_status(struct run *r, int sts)
{
	if (sts != -E2BIG)
		return sts;
	snprintf(r->err, sizeof(r->err), "%s too long for one heat map (at most a day at "
		 "50 slices): %s", r->live ? "live run" : "time range",
		 r->live ? "cut it with --period" : "narrow it with -S/-T");
	return -1;
}

/* Every record of a window feeds every kind of profile asked for. */
static int
add_sample(void *arg, const struct stack_sample *s)
{
	struct run	*r = arg;
	int		sts = 0;

	if (r->flames)
		sts = selection_add(r->sel, s);
	if (sts == 0 && r->heat)
		sts = heat_status(r, heatmaps_add(r->heat, s));
	if (sts == 0 && r->view && selection_wants(r->sel, s) &&
	    (sts = view_values_add(r->view, s)) != 0) {
		if (sts > 0) {
			fprintf(stderr, "%s: warning: %s: range too long for live.html's view file; "
				"it says so, empty (narrow it with -S/-T)\n", pmGetProgname(), s->host);
			return 0;
		}
		snprintf(r->err, sizeof(r->err), "out of memory keeping the range's values");
	}
	return sts;
}

/* Records just outside an archive window: the heat map's edge seconds. */
static int
add_near(void *arg, const struct stack_sample *s)
{
	struct run	*r = arg;

	return heat_status(r, heatmaps_add(r->heat, s));
}

static int
add_counters(void *arg, const struct heat_counters *c)
{
	struct run	*r = arg;
	int		sts = r->heat ? heat_status(r, heatmaps_counters(r->heat, c)) : 0;

	if (sts == 0 && r->view && (sts = view_values_heat(r->view, c)) < 0)
		snprintf(r->err, sizeof(r->err), "out of memory keeping the range's heat map");
	return sts;
}

/* A stretch without data: the profiles of its window will say so. */
static int
add_gap(void *arg, const struct data_gap *g)
{
	struct run	*r = arg;

	if (gap_list_add(&r->gaps, g) < 0) {
		snprintf(r->err, sizeof(r->err), "out of memory");
		return -1;
	}
	return 0;
}

static int
begin_window(void *arg, const struct window *w)
{
	struct run	*r = arg;

	return r->heat ? heat_status(r, heatmaps_begin(r->heat, w)) : 0;
}

/* A heat map with nothing in it is still written: say so. */
static void
warn_empty(const struct profile *p, size_t n)
{
	char	from[40], to[40];
	size_t	i;

	for (i = 0; i < n; i++) {
		if (p[i].samples > 0 || p[i].stack_samples > 0)
			continue;
		utc_strftime(p[i].start, "%Y-%m-%d %H:%M:%S UTC", from, sizeof(from));
		utc_strftime(p[i].end, "%Y-%m-%d %H:%M:%S UTC", to, sizeof(to));
		fprintf(stderr, "%s: warning: %s: no samples from %s to %s; the heat map says so\n",
			pmGetProgname(), p[i].host, from, to);
	}
}

/* The profiles of window w: its flame trees (unless flames is false),
 * then its heat maps. */
static int
take_window(struct run *r, const struct window *w, bool flames, struct profile **p,
	    size_t *n)
{
	struct profile	*hp = NULL;
	size_t		hn = 0;

	*p = NULL;
	*n = 0;
	if ((flames && r->flames && selection_take(r->sel, w->start, w->end, p, n) < 0) ||
	    (r->heat && heatmaps_take(r->heat, w, &hp, &hn) < 0) ||
	    profiles_append(p, n, hp, hn) < 0) {
		profiles_free(*p, *n);
		profiles_free(hp, hn);
		snprintf(r->err, sizeof(r->err), "out of memory building profiles");
		return -1;
	}
	r->written += (unsigned)(*n - hn);	/* flame graphs */
	warn_empty(*p + *n - hn, hn);
	free(hp);
	return 0;
}

/* Write profiles p[0..n) (without -o, keep them for the end); frees them.
 * The gaps of window done go with them; done NULL: the gaps wait for a
 * fleet's flame trees, written later. */
static int
write_profiles(struct run *r, const struct window *done, struct profile *p, size_t n)
{
	struct output_context *out = &r->config->out;
	int		sts = 0;

	if (r->config->output == NULL) {	/* gaps kept too, for the end */
		if (profiles_append(&r->held, &r->nheld, p, n) < 0) {
			profiles_free(p, n);
			snprintf(r->err, sizeof(r->err), "out of memory");
			return -1;
		}
		free(p);
		return 0;
	}
	if (n > 0 && out->sink == NULL &&
	    (out->sink = sink_open(r->config->output, &site_index_merge, r->err,
				   sizeof(r->err))) == NULL)
		sts = -1;
	out->gaps = r->gaps.v;
	out->ngaps = r->gaps.n;
	if (sts == 0 && n > 0)
		sts = output_write(out, p, n, r->err, sizeof(r->err));
	out->gaps = NULL;
	out->ngaps = 0;
	if (done)
		gap_list_forget(&r->gaps, done->host, done->end);
	profiles_free(p, n);
	return sts;
}

/*
 * A window ended: write its profiles.  Archives hand over one window per
 * host; a fleet view or merged hosts need them all, so then the flame
 * trees wait for the last (fleet_end) and the windows' union.
 */
static int
end_window(void *arg, const struct window *w)
{
	struct run	*r = arg;
	struct profile	*p;
	size_t		n;
	bool		wait = r->one_window && w->host != NULL;
	int		sts;

	if (wait) {
		if (r->fleet.end == 0 || w->start < r->fleet.start)
			r->fleet.start = w->start;
		if (w->end > r->fleet.end)
			r->fleet.end = w->end;
	}
	if (take_window(r, w, !wait, &p, &n) < 0)
		return -1;
	sts = write_profiles(r, wait ? NULL : w, p, n);
	if (r->view)
		view_values_forget(r->view, w->host);
	return sts;
}

/* After the last archive: the flame trees of every host's window. */
static int
fleet_end(struct run *r)
{
	struct profile	*p;
	size_t		n;

	if (!r->one_window || r->fleet.end == 0)
		return 0;
	if (r->flames && selection_take(r->sel, r->fleet.start, r->fleet.end, &p, &n) < 0) {
		snprintf(r->err, sizeof(r->err), "out of memory building profiles");
		return -1;
	}
	if (!r->flames)
		return 0;
	r->written += (unsigned)n;
	return write_profiles(r, &r->fleet, p, n);
}

/* Folded stacks say nothing of their event: they are the one --event
 * names (on-cpu by default). */
static int
add_folded(void *arg, const struct stack_sample *s)
{
	struct run		*r = arg;
	struct stack_sample	copy = *s;

	copy.event = r->config->select.event;
	return selection_add(r->sel, &copy);
}

static int
add_folded_baseline(void *arg, const struct stack_sample *s)
{
	struct run		*r = arg;
	struct stack_sample	copy = *s;

	copy.event = r->config->select.event;
	return selection_add_baseline(r->sel, &copy);
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
	/* the baseline's stacks join the same trees: labelled as this host */
	if (c->baseline && source_folded_read(c->baseline, host, c->frequency,
					      add_folded_baseline, r, r->err, sizeof(r->err)) < 0)
		return -1;
	if (source_folded_read(c->input, host, c->frequency, add_folded, r,
			       r->err, sizeof(r->err)) < 0)
		return -1;
	if (selection_samples(r->sel) == 0) {
		snprintf(r->err, sizeof(r->err), "%s: no stacks%s", c->input,
			 c->select.process ? " of the selected processes: see the names with "
			 "cut -d';' -f1 on the file" : "");
		r->nothing = true;
		return -1;
	}
	return end_window(r, &w);
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
	r->config->out.sink = sink_open(r->config->output, &site_index_merge, err, errlen);
	return r->config->out.sink ? 0 : -1;
}

/* What the pmapi sources hand over, and to which callbacks. */
static struct source_consumer
consumer(struct run *r)
{
	struct source_consumer	c = {
		.sample = add_sample, .begin = begin_window, .end = end_window,
		.gap = add_gap, .arg = r,
	};

	if (r->heat != NULL) {
		c.counters = add_counters;
		c.near = add_near;
		c.stacks_optional = !r->flames;
	} else if (r->view != NULL) {
		c.counters = add_counters;	/* the page's heat map, if logged */
		c.heat_optional = true;
	}
	return c;
}

static int
run_live(struct config *c, struct run *r, const struct event_metrics *m)
{
	struct source_consumer	sc = consumer(r);
	struct live_options	lo = {
		.hosts = opts.hosts, .nhosts = opts.nhosts,
		.interval = opts.interval.tv_sec + opts.interval.tv_usec / 1e6,
		.duration = c->duration, .period = c->period, .metrics = m,
		.ready = open_output,
	};

	if (lo.interval <= 0)
		lo.interval = 1.0;
	c->out.source = "pmcd";
	r->live = true;
	return source_live_run(&lo, &sc, r->err, sizeof(r->err));
}

/* The baseline's records, relabelled to the host they are compared
 * with (one host), or kept under their own (several: hosts pair by name). */
struct baseline_run {
	struct run	*run;
	char		*host;		/* NULL: keep each record's */
};

static int
add_baseline_sample(void *arg, const struct stack_sample *s)
{
	struct baseline_run	*b = arg;
	struct stack_sample	copy = *s;

	if (b->host != NULL)
		copy.host = b->host;
	return selection_add_baseline(b->run->sel, &copy);
}

static int
baseline_window(void *arg, const struct window *w)
{
	(void)arg;
	(void)w;
	return 0;
}

/* The host of the first archive (all of ours when they are one host). */
static char *
archives_host(char **archives, int n)
{
	char	name[256], *one = NULL;
	int	i, ctx;

	for (i = 0; i < n; i++) {
		if ((ctx = pmNewContext(PM_CONTEXT_ARCHIVE, archives[i])) < 0)
			return NULL;
		pmGetContextHostName_r(ctx, name, sizeof(name));
		pmDestroyContext(ctx);
		if (one == NULL)
			one = strdup(name);
		else if (strcmp(one, name) != 0) {
			free(one);
			return NULL;
		}
	}
	return one;
}

/*
 * --baseline with -a: archive:PATH[,PATH...] (other archives, the same
 * -S/-T), or range:START,END (ours, another range).  Read before ours,
 * into the baseline column of the same trees.
 */
static int
read_baseline_archives(struct config *c, struct run *r, struct archive_options ao)
{
	struct baseline_run	b = { r, archives_host(ao.archives, ao.narchives) };
	struct source_consumer	sc = {
		.sample = add_baseline_sample, .end = baseline_window, .arg = &b,
	};
	char			*list = NULL, *range = NULL, *save = NULL, *w, **paths = NULL;
	int			sts = -1, n = 0;

	if (strncmp(c->baseline, "archive:", 8) == 0) {
		list = strdup(c->baseline + 8);
		paths = calloc(strlen(c->baseline) + 1, sizeof(*paths));
		for (w = list ? strtok_r(list, ",", &save) : NULL; w && paths;
		     w = strtok_r(NULL, ",", &save))
			paths[n++] = w;
		ao.archives = paths;
		ao.narchives = n;
	} else if (strncmp(c->baseline, "range:", 6) == 0 &&
		   (range = strdup(c->baseline + 6)) != NULL && (w = strchr(range, ',')) != NULL) {
		*w = '\0';
		ao.start = range;
		ao.finish = w + 1;
		n = 1;
	}
	if (n == 0)
		snprintf(r->err, sizeof(r->err), "--baseline %s: with -a, give archive:PATH[,PATH...] "
			 "or range:START,END", c->baseline);
	else if ((sts = source_archive_read(&ao, &sc, r->err, sizeof(r->err))) > 0) {
		r->partial = true;	/* the baseline's intact part */
		sts = 0;
	}
	free(b.host);
	free(list);
	free(paths);
	free(range);
	return sts;
}

/* The values file of flame profile p, for live.html (output.h). */
static int
write_view(void *arg, const struct profile *p, const struct data_gap *g, size_t ng,
	   struct membuf *out)
{
	struct run	*r = arg;

	return view_values_render(r->view, p, r->config->select.event, g, ng, out);
}

/* Archives written to a site get live.html's values file beside each
 * profile: not a fleet's or a differential's (one host's drains each). */
static int
want_view(struct config *c, struct run *r)
{
	if (c->output == NULL || !r->flames || c->baseline || c->select.total ||
	    c->select.merge_hosts)
		return 0;
	if ((r->view = view_values_new()) == NULL) {
		snprintf(r->err, sizeof(r->err), "out of memory");
		return -1;
	}
	c->out.view = write_view;
	c->out.view_arg = r;
	return 0;
}

static int
run_archives(struct config *c, struct run *r, const struct event_metrics *m)
{
	struct source_consumer	sc;
	const char		*isolate = getenv("PMFLAME_ARCHIVE_ISOLATE");
	const char		*seek = getenv("PMFLAME_ARCHIVE_SEEK");
	struct archive_options	ao = {
		.archives = opts.archives, .narchives = opts.narchives,
		.start = opts.start_optarg, .finish = opts.finish_optarg,
		.align = opts.align_optarg, .origin = opts.origin_optarg,
		.timezone = opts.timezone, .hostzone = opts.tzflag, .metrics = m,
		.partial = c->partial,
		/* libpcp crashes on damaged archives: read them in a child */
		.isolate = isolate == NULL || strcmp(isolate, "0") != 0,
		.seek = seek == NULL || strcmp(seek, "0") != 0,
	};
	int			sts;

	if (want_view(c, r) < 0)
		return -1;
	sc = consumer(r);
	c->out.source = "archive";
	r->one_window = c->select.total || c->select.merge_hosts;
	if (c->baseline && read_baseline_archives(c, r, ao) < 0)
		return -1;
	if ((sts = source_archive_read(&ao, &sc, r->err, sizeof(r->err))) < 0)
		return -1;
	if (sts > 0)
		r->partial = true;	/* kept if the baseline was partial too */
	return fleet_end(r);
}

/* pmseries: -h names hosts (hostname labels) to read, not pmcd hosts. */
static int
run_series(struct config *c, struct run *r, const struct event_metrics *m)
{
	struct source_consumer	sc = consumer(r);
	struct series_options	so = {
		.url = c->series, .hosts = opts.hosts, .nhosts = opts.nhosts, .query = c->query,
		.start = opts.start_optarg, .finish = opts.finish_optarg,
		.align = opts.align_optarg, .origin = opts.origin_optarg, .metrics = m,
	};
	int			sts;

	c->out.source = "pmseries";
	r->one_window = c->select.total || c->select.merge_hosts;
	if ((sts = source_series_read(&so, &sc, r->err, sizeof(r->err))) < 0) {
		r->nothing = sts == SOURCE_NO_SERIES;
		return -1;
	}
	return fleet_end(r);
}

/* What to do when an event's profile has no samples: each event has its
 * own switch, and sampling may select no process. */
static const char *
event_hint(const char *event, bool archive, bool selected)
{
	if (selected)
		return archive ? "no process of the archive matched --process/--pid; "
			"pminfo -a ARCHIVE -f stackprof.oncpu.samples lists them" :
			"no running process matched --process/--pid, or the PMDA's own "
			"stackprof.control.process and pids leave it out";
	if (strcmp(event, "off-cpu") == 0)
		return archive ? "was the off-CPU profile on (stackprof.control.offcpu 1) and "
			"stackprof.offcpu.history logged?" :
			"the off-CPU profile is off by default: pmstore stackprof.control.offcpu 1";
	if (strcmp(event, "off-wake") == 0)
		return archive ? "were the off-CPU and off-wake profiles on (stackprof.control.offcpu "
			"and offwake 1) and stackprof.offwake.history logged?" :
			"the off-wake profile is off by default: pmstore stackprof.control.offcpu 1 "
			"and stackprof.control.offwake 1";
	if (strcmp(event, "page-fault") == 0)
		return archive ? "was the page-fault profile on (stackprof.control.pagefault 1) "
			"and stackprof.pagefault.history logged?" :
			"the page-fault profile is off by default: pmstore stackprof.control.pagefault 1";
	return archive ? "see what the archive holds with pmdumplog -L, and give -S/-T inside it" :
		"is sampling on (pmstore stackprof.control.enabled 1), and do "
		"stackprof.control.process and pids select a running process?";
}

/* After the run: no flame graph at all is an error; without -o, the one
 * output goes to stdout now. */
static int
finish_run(struct config *c, struct run *r)
{
	bool	selected = c->select.process || c->select.npids;

	if (r->flames && r->written == 0 && !c->input) {
		r->nothing = true;
		if (opts.narchives > 0 || c->series)
			snprintf(r->err, sizeof(r->err), "no %s stack samples in the time range%s%s: "
				 "%s", c->select.event, selected ? " for the selected processes" : "",
				 r->partial ? " in what the damaged archives still hold" : "",
				 event_hint(c->select.event, true, selected));
		else
			snprintf(r->err, sizeof(r->err), "no %s stack samples%s during the run: %s",
				 c->select.event, selected ? " of the selected processes" : "",
				 event_hint(c->select.event, false, selected));
		return -1;
	}
	if (c->output == NULL && r->nheld > 0) {
		c->out.gaps = r->gaps.v;
		c->out.ngaps = r->gaps.n;
		return output_write(&c->out, r->held, r->nheld, r->err, sizeof(r->err));
	}
	return 0;
}

/*
 * A damaged archive: the profiles hold what was intact and say so.  That
 * is an error (exit 3) unless --partial said partial data will do.
 */
static int
partial_status(const struct config *c, const struct run *r)
{
	if (!r->partial)
		return 0;
	if (c->partial) {
		fprintf(stderr, "%s: warning: damaged archive: the profiles hold what was "
			"intact, and say so\n", pmGetProgname());
		return 0;
	}
	fprintf(stderr, "%s: damaged archive: the profiles hold what was intact, and say so "
		"(--partial accepts that)\n", pmGetProgname());
	return EXIT_PARTIAL;
}

/* What --format asks for that the source cannot give, said before any work. */
static int
formats_check(struct config *c, bool heat)
{
	if (heat && c->input)
		fprintf(stderr, "%s: --format heatmap needs -a or -h: folded stacks have no times\n",
			pmGetProgname());
	else if (!c->input && c->output == NULL && c->out.nformats > 1)
		fprintf(stderr, "%s: %zu formats: give -o DIR to write them all\n",
			pmGetProgname(), c->out.nformats);
	else
		return 0;
	return -1;
}

static int
run(struct config *c)
{
	const struct event_metrics	*m = NULL;
	struct run			r = { .config = c };
	char				err[512];
	unsigned long			spooled;
	int				sts;

	if (c->select.event == NULL)
		c->select.event = "on-cpu";
	c->out.emit.event = c->select.event;	/* the units pprof & co. name */
	if (!c->input && (m = event_metrics_find(c->select.event)) == NULL) {
		fprintf(stderr, "%s: --event %s: stackprof exports no such event "
			"(known: on-cpu, off-cpu, off-wake, page-fault)\n", pmGetProgname(), c->select.event);
		return 1;
	}
	/* the SVG says which profile it is, unless --title did */
	if (strcmp(c->out.emit.title, "Flame Graph") == 0)
		c->out.emit.title = event_measure(c->select.event)->title;
	c->out.emit.count_name = event_measure(c->select.event)->count_name;
	if (output_formats_parse(c->formats ? c->formats : "svg", c->out.formats,
				 &c->out.nformats, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", pmGetProgname(), err);
		return 1;
	}
	if (formats_check(c, output_wants(&c->out, PROFILE_HEATMAP)) < 0)
		return 1;
	if ((r.sel = selection_new(&c->select, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s: %s\n", pmGetProgname(), err);
		return 1;
	}
	r.flames = output_wants(&c->out, PROFILE_FLAME);
	c->out.filtered = c->select.process || c->select.npids;
	if (output_wants(&c->out, PROFILE_HEATMAP) &&
	    (r.heat = heatmaps_new(c->out.filtered ? r.sel : NULL)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", pmGetProgname());
		selection_free(r.sel);
		return 1;
	}
	if (c->input)
		sts = run_folded(c, &r);
	else if (opts.narchives > 0)
		sts = run_archives(c, &r, m);
	else if (c->series)
		sts = run_series(c, &r, m);
	else
		sts = run_live(c, &r, m);
	if (sts == 0)
		sts = finish_run(c, &r);
	if (sts < 0)
		fprintf(stderr, "%s: %s\n", pmGetProgname(), r.err);
	spooled = sink_close(c->out.sink);
	profiles_free(r.held, r.nheld);
	gap_list_free(&r.gaps);
	heatmaps_free(r.heat);
	view_values_free(r.view);
	selection_free(r.sel);
	if (sts < 0)
		return r.nothing ? EXIT_NOTHING : 1;
	if ((sts = partial_status(c, &r)) == 0 && spooled > 0) {
		fprintf(stderr, "%s: %lu object%s spooled, not delivered: S3 could not be "
			"reached; the next run or pmflame --flush delivers them\n",
			pmGetProgname(), spooled, spooled == 1 ? "" : "s");
		sts = EXIT_SPOOLED;
	}
	return sts;
}

int
main(int argc, char **argv)
{
	struct config		c = { .frequency = 99 };
	struct sigaction	sa = { .sa_handler = on_signal };
	char			err[512];
	int			sts;

	/*
	 * A fixed threshold: every block over 1 MB is its own mapping, so the
	 * outputs' buffers grow by mremap (no copy held twice) and a freed
	 * tree array goes back to the system.  glibc's default raises the
	 * threshold after such a free, and a 70 MB JSON then grows by copies:
	 * 14 MB more peak RSS on the bench/render input.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	emit_options_default(&c.out.emit);
	if ((sts = parse_args(argc, argv, &c)) != 0)
		return sts < 0 ? 1 : 0;
	if (c.csp) {
		if (emit_svg_csp(err, sizeof(err)) < 0) {
			fprintf(stderr, "%s: --csp: cannot hash the scripts\n", pmGetProgname());
			return 1;
		}
		printf("%s\n", err);
		return 0;
	}
	if (c.flush) {
		sts = sink_s3_flush_spool(&site_index_merge, err, sizeof(err));
		if (sts < 0) {
			fprintf(stderr, "%s: --flush: %s\n", pmGetProgname(), err);
			return 1;
		}
		printf("%d objects still spooled\n", sts);
		return sts > 0 ? 1 : 0;
	}
	if (!c.input && !c.series && opts.nhosts == 0 && opts.narchives == 0) {
		/* as every PCP tool: no -h, no -a means the local pmcd */
		static char	*local[] = { "local:" };

		opts.hosts = local;
		opts.nhosts = 1;
	}
	/* the archives' reader may be a child: the subtitles are written here */
	if (opts.timezone && (sts = pmNewZone(opts.timezone)) < 0) {
		fprintf(stderr, "%s: -Z %s: %s\n", pmGetProgname(), opts.timezone, pmErrStr(sts));
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sts = run(&c);
	free(c.pids);
	return sts;
}
