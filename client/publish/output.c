/*
 * output.c - the format table, file naming, and the step from finished
 * profiles to objects in a sink (or one output on stdout).  A row renders
 * the profiles of its kind: flame trees, or a host's heat map.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcp/pmapi.h>
#include "output.h"
#include "emit/emit_heatmap.h"
#include "profile/heatmap.h"
#include "site.h"
#include "common/gaps.h"
#include "common/util.h"
#include "emit/emit_export.h"

static int
render_json(const struct profile *p, const struct emit_options *o, struct membuf *out)
{
	return emit_json_described(p->tree, o->event, o->description, out);
}

static int
render_svg(const struct profile *p, const struct emit_options *o, struct membuf *out)
{
	return emit_svg(p->tree, o, out);
}

static int
render_folded(const struct profile *p, const struct emit_options *o, struct membuf *out)
{
	(void)o;
	return emit_folded(p->tree, out);
}

/* The title defaults to a flame graph's; a heat map has its own default. */
static int
render_heatmap(const struct profile *p, const struct emit_options *o, struct membuf *out)
{
	struct heatmap_emit_options	ho = { o->title, o->subtitle, o->width };

	if (ho.title && strcmp(ho.title, "Flame Graph") == 0)
		ho.title = NULL;
	return emit_heatmap(p->heatmap, &ho, out);
}

static const struct output_format formats[] = {
	{ "json",	"json",		"application/json",		render_json },
	{ "svg",	"svg",		"image/svg+xml",		render_svg },
	{ "folded",	"folded",	"text/plain; charset=utf-8",	render_folded },
	{ "heatmap",	"svg",		"image/svg+xml",		render_heatmap },
	{ "pprof",	"pb.gz",	"application/gzip",		emit_pprof },
	{ "speedscope",	"speedscope.json", "application/json",		emit_speedscope },
	{ "grafana",	"grafana.json",	"application/json",		emit_grafana },
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

/* Not a --format word: written for flame profiles when c->view is set. */
static const struct output_format view_format = {
	"view", "view.json", "application/json", NULL,
};

const struct output_format *
output_format_find(const char *name)
{
	size_t	i;

	for (i = 0; i < NFORMATS; i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

const char *
output_format_names(void)
{
	static char	names[128];
	size_t		i;

	if (names[0] == '\0')
		for (i = 0; i < NFORMATS; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names),
				 "%s%s", i ? ", " : "", formats[i].name);
	return names;
}

/* Rows render flame trees, but for the heat map's, which renders heat maps. */
static enum profile_kind
row_kind(const struct output_format *f)
{
	return f->render == render_heatmap ? PROFILE_HEATMAP : PROFILE_FLAME;
}

bool
output_wants(const struct output_context *c, enum profile_kind kind)
{
	size_t	f;

	for (f = 0; f < c->nformats; f++)
		if (row_kind(c->formats[f]) == kind)
			return true;
	return false;
}

int
output_formats_parse(const char *list, const struct output_format **v, size_t *n,
		     char *err, size_t errlen)
{
	char	*copy = strdup(list), *word, *save = NULL;
	size_t	i;

	if (copy == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*n = 0;
	for (word = strtok_r(copy, ",", &save); word; word = strtok_r(NULL, ",", &save)) {
		const struct output_format	*f = output_format_find(word);

		if (f == NULL) {
			snprintf(err, errlen, "unknown format \"%s\" (known: %s)",
				 word, output_format_names());
			free(copy);
			return -1;
		}
		for (i = 0; i < *n && v[i] != f; i++)
			;
		if (i == *n && *n < OUTPUT_MAX_FORMATS)
			v[(*n)++] = f;
	}
	free(copy);
	if (*n == 0) {
		snprintf(err, errlen, "no output format given");
		return -1;
	}
	return 0;
}

void
output_time_name(double t, char *buf, size_t len)
{
	utc_strftime(t, "%Y%m%dT%H%M%SZ", buf, len);
}

static void
flame_subtitle(const struct output_context *c, const struct profile *p, char *buf, size_t len)
{
	char	from[64], to[64];

	zone_time(p->start, from, sizeof(from));
	zone_time(p->end, to, sizeof(to));
	if (p->start == p->end)
		snprintf(buf, len, "%s %s, %s", c->source, p->host, to);
	else
		snprintf(buf, len, "%s %s, %s to %s", c->source, p->host, from, to);
	if (c->baseline && strlen(buf) + 1 < len)
		snprintf(buf + strlen(buf), len - strlen(buf), "; red grew, blue shrank since %s%s",
			 c->baseline, c->emit.negate ? " (widths: the baseline)" : "");
}

/* A heat map's axis is UTC: so are the times above it. */
static void
heatmap_subtitle(const struct output_context *c, const struct profile *p, char *buf, size_t len)
{
	char	from[40], to[40];

	utc_strftime(p->start, "%Y-%m-%d %H:%M:%S UTC", from, sizeof(from));
	utc_strftime(p->end, "%Y-%m-%d %H:%M:%S UTC", to, sizeof(to));
	snprintf(buf, len, "%s %s, %s to %s; %llu samples in the heat map, %llu in stacks%s",
		 c->source, p->host, from, to, (unsigned long long)p->samples,
		 (unsigned long long)p->stack_samples, c->filtered ? " (selected processes)" : "");
}

/*
 * Where a kind of profile goes, beside the others of its host: a heat map
 * is HOST/Total/START_END-heatmap.svg, the stem keeping it apart from the
 * Total flame graph's, and "heat map" in the site index.
 */
static const struct place {
	const char	*suffix;	/* after START_END and after "latest" */
	const char	*label;		/* site index name; NULL: the profile's */
} places[] = {
	[PROFILE_FLAME] =	{ "", NULL },
	[PROFILE_HEATMAP] =	{ "-heatmap", "heat map" },
}, diff_place = { "-diff", NULL };

/* A differential flame graph sits beside the plain ones of its process. */
static const struct place *
place_of(const struct profile *p)
{
	if (p->kind == PROFILE_FLAME && p->tree && flame_tree_has_baseline(p->tree))
		return &diff_place;
	return &places[p->kind];
}

/* What follows START_END and "latest": the place's suffix, then the
 * event's unless on-cpu ("-off-cpu"), so the profiles of two events of
 * one process and range are two files and two index rows. */
static void
stem_suffix(const struct output_context *c, const struct profile *p, char *buf, size_t len)
{
	char	event[40] = "";

	if (p->kind == PROFILE_FLAME && c->emit.event && strcmp(c->emit.event, "on-cpu") != 0) {
		event[0] = '-';
		sink_safe_name(c->emit.event, event + 1, sizeof(event) - 1);
	}
	snprintf(buf, len, "%s%s", place_of(p)->suffix, event);
}

/* dir "HOST/NAME", stem "HOST/NAME/START_END[suffix]" */
static void
profile_stem(const struct output_context *c, const struct profile *p, char *dir, size_t dirlen,
	     char *stem, size_t stemlen)
{
	char	suffix[48];

	char	host[128], name[128], pname[160], from[32], to[32];

	sink_safe_name(p->host, host, sizeof(host));
	if (p->pid != 0 && p->gen != 0) {	/* a reused PID's later process */
		snprintf(pname, sizeof(pname), "%s.%u.%u", p->name, p->pid, p->gen);
		sink_safe_name(pname, name, sizeof(name));
	} else if (p->pid != 0) {
		snprintf(pname, sizeof(pname), "%s.%u", p->name, p->pid);
		sink_safe_name(pname, name, sizeof(name));
	} else
		sink_safe_name(p->name, name, sizeof(name));
	output_time_name(p->start, from, sizeof(from));
	output_time_name(p->end, to, sizeof(to));
	snprintf(dir, dirlen, "%s/%s", host, name);
	stem_suffix(c, p, suffix, sizeof(suffix));
	if (snprintf(stem, stemlen, "%s/%s_%s%s", dir, from, to, suffix) >= (int)stemlen)
		stem[0] = '\0';	/* cannot happen: names are cut to 100 bytes */
}

/* The formats that render p, in --format order; their count. */
static size_t
formats_of(const struct output_context *c, const struct profile *p,
	   const struct output_format **out)
{
	size_t	f, n = 0;

	for (f = 0; f < c->nformats; f++)
		if (row_kind(c->formats[f]) == p->kind)
			out[n++] = c->formats[f];
	if (c->view != NULL && p->kind == PROFILE_FLAME && n > 0 && n < OUTPUT_MAX_FORMATS)
		out[n++] = &view_format;
	return n;
}

/* The gaps of p's host among the window's, into g (room for c->ngaps). */
static size_t
gaps_of(const struct output_context *c, const struct profile *p, struct data_gap *g)
{
	size_t	i, n = 0;

	for (i = 0; i < c->ngaps; i++)
		if (c->gaps[i].host == NULL || strcmp(c->gaps[i].host, p->host) == 0)
			g[n++] = c->gaps[i];
	return n;
}

/* Subtitle and description of p: what it covers, then what it misses. */
static int
describe(const struct output_context *c, const struct profile *p, const struct data_gap *g,
	 size_t ng, struct membuf *sub, struct membuf *desc)
{
	char	line[384];

	if (p->kind == PROFILE_HEATMAP)
		heatmap_subtitle(c, p, line, sizeof(line));
	else
		flame_subtitle(c, p, line, sizeof(line));
	membuf_puts(sub, line);
	if (ng > 0) {
		membuf_puts(sub, "; ");
		gaps_describe(sub, g, ng);
		gaps_describe(desc, g, ng);
	}
	membuf_append(desc, "", 0);
	return sub->failed || desc->failed ? -1 : 0;
}

/* One format of one profile, rendered on a thread of its own. */
struct render_job {
	struct output_context		*c;
	const struct profile		*p;
	const struct data_gap		*g;
	size_t				ng;
	const struct output_format	*fmt;
	struct membuf			*buf;
	int				sts;
	pthread_t			thread;
	bool				threaded;
};

static void *
render_job_run(void *arg)
{
	struct render_job	*j = arg;

	j->sts = j->fmt == &view_format ? j->c->view(j->c->view_arg, j->p, j->g, j->ng, j->buf) :
		 j->fmt->render(j->p, &j->c->emit, j->buf);
	if (j->sts == 0)
		membuf_drain(j->buf);
	return NULL;
}

/*
 * Render p in each of its formats into bufs[0..nf) (set up by the caller,
 * drained or not) bound for the files STEM.EXT, or stdout when stem is
 * NULL; g[0..ng) its gaps.  The formats read the finished tree
 * and write their own buffer, so each but the first renders on a thread:
 * svg,json takes the JSON's time, not the sum.  The view reads its
 * source, so it keeps to this thread.
 */
static int
render_all(struct output_context *c, const struct profile *p, const struct data_gap *g,
	   size_t ng, const struct output_format *const *fmts, size_t nf, struct membuf *bufs,
	   const char *stem, char *err, size_t errlen)
{
	struct render_job	jobs[OUTPUT_MAX_FORMATS];
	struct membuf		sub, desc;
	size_t			f;
	int			sts;

	membuf_init(&sub);
	membuf_init(&desc);
	if ((sts = describe(c, p, g, ng, &sub, &desc)) < 0)
		snprintf(err, errlen, "out of memory");
	c->emit.subtitle = sub.data;
	c->emit.description = ng > 0 ? desc.data : NULL;
	for (f = 0; f < nf && sts == 0; f++) {
		jobs[f] = (struct render_job){ .c = c, .p = p, .g = g, .ng = ng,
					       .fmt = fmts[f], .buf = &bufs[f] };
		jobs[f].threaded = f > 0 && fmts[f] != &view_format &&
				   pthread_create(&jobs[f].thread, NULL, render_job_run,
						  &jobs[f]) == 0;
	}
	for (f = 0; f < nf && sts == 0; f++) {
		if (jobs[f].threaded)
			pthread_join(jobs[f].thread, NULL);
		else
			render_job_run(&jobs[f]);
	}
	for (f = 0; f < nf && sts == 0; f++) {
		if (bufs[f].drain_errno != 0 && stem == NULL) {
			snprintf(err, errlen, "cannot write to stdout: %s",
				 strerror(bufs[f].drain_errno));
			sts = -1;
		} else if (bufs[f].drain_errno != 0) {	/* the file, not the format */
			snprintf(err, errlen, "cannot write %s/%s.%s: %s", c->sink->target, stem,
				 fmts[f]->ext, strerror(bufs[f].drain_errno));
			sts = -1;
		} else if (jobs[f].sts < 0 || bufs[f].failed) {
			snprintf(err, errlen, "cannot render %s of %s on %s: %s",
				 fmts[f]->name, p->name, p->host,
				 strerror(jobs[f].sts < 0 ? -jobs[f].sts : ENOMEM));
			sts = -1;
		}
	}
	c->emit.subtitle = NULL;
	c->emit.description = NULL;
	membuf_free(&sub);
	membuf_free(&desc);
	return sts;
}

size_t
output_count(const struct output_context *c, const struct profile *p, size_t n)
{
	const struct output_format	*fmts[OUTPUT_MAX_FORMATS];
	size_t				i, total = 0;

	for (i = 0; i < n; i++)
		total += formats_of(c, &p[i], fmts);
	return total;
}

/* A rendering passes to its file or to stdout this much at a time: its
 * pieces are still in the CPU's cache when they are copied out. */
#define OUTPUT_CHUNK	(1 << 20)

static int
drain_stdout(void *arg, const void *data, size_t len)
{
	(void)arg;
	return fwrite(data, 1, len, stdout) == len ? 0 : -1;
}

/* The one output there is, on stdout. */
static int
write_stdout(struct output_context *c, const struct profile *p, size_t n,
	     char *err, size_t errlen)
{
	const struct output_format	*fmts[OUTPUT_MAX_FORMATS];
	struct membuf			buf;
	struct data_gap			*g;
	size_t				i, nf = 0;
	int				sts = 0;

	if (output_count(c, p, n) != 1) {
		snprintf(err, errlen, "%zu profile%s in %zu format%s: give -o DIR to write them all",
			 n, n == 1 ? "" : "s", c->nformats, c->nformats == 1 ? "" : "s");
		return -1;
	}
	for (i = 0; i < n && (nf = formats_of(c, &p[i], fmts)) == 0; i++)
		;
	if ((g = calloc(c->ngaps + 1, sizeof(*g))) == NULL ||
	    membuf_init_drained(&buf, OUTPUT_CHUNK, drain_stdout, NULL) < 0) {
		snprintf(err, errlen, "out of memory");
		free(g);
		return -1;
	}
	sts = render_all(c, &p[i], g, gaps_of(c, &p[i], g), fmts, nf, &buf, NULL, err, errlen);
	free(g);
	membuf_free(&buf);
	if (sts == 0 && fflush(stdout) != 0) {
		snprintf(err, errlen, "cannot write to stdout: %s", strerror(errno));
		sts = -1;
	}
	return sts;
}

/*
 * Render one profile's formats, each straight into a staged object
 * STEM.EXT (stages[0..nf), NULL where not opened), and end them: written,
 * but nobody sees them before output_write commits every profile's.
 */
static int
stage_profile(struct output_context *c, const struct profile *p, const char *stem,
	      const struct data_gap *g, size_t ng, const struct output_format *const *fmts,
	      size_t nf, struct sink_stage **stages, char *err, size_t errlen)
{
	struct membuf	bufs[OUTPUT_MAX_FORMATS];
	char		path[512];
	size_t		f, opened = 0;
	int		sts = 0;

	for (f = 0; f < nf && sts == 0; f++) {
		snprintf(path, sizeof(path), "%s.%s", stem, fmts[f]->ext);
		if ((stages[f] = sink_stage_open(c->sink, path, fmts[f]->content_type,
						 err, errlen)) == NULL)
			sts = -1;
		else if (membuf_init_drained(&bufs[opened++], OUTPUT_CHUNK, sink_stage_write,
					     stages[f]) < 0) {
			snprintf(err, errlen, "out of memory");
			sts = -1;
		}
	}
	if (sts == 0)
		sts = render_all(c, p, g, ng, fmts, nf, bufs, stem, err, errlen);
	for (f = 0; f < opened; f++)
		membuf_free(&bufs[f]);
	for (f = 0; f < nf && sts == 0; f++)
		sts = sink_stage_end(stages[f], err, errlen);
	return sts;
}

/* Make one profile's staged renderings seen as STEM.EXT, and as
 * DIR/latest[suffix].EXT too. */
static int
commit_profile(struct output_context *c, const struct profile *p, const char *dir,
	       const struct output_format *const *fmts, size_t nf, struct sink_stage **stages,
	       char *err, size_t errlen)
{
	char	latest[512], suffix[48];
	size_t	f;
	int	sts = 0;

	stem_suffix(c, p, suffix, sizeof(suffix));
	for (f = 0; f < nf && sts == 0; f++) {
		snprintf(latest, sizeof(latest), "%s/latest%s.%s", dir, suffix, fmts[f]->ext);
		sts = sink_stage_commit(stages[f], latest, err, errlen);
		stages[f] = NULL;
	}
	return sts;
}

static struct site_entry
site_entry_of(const struct output_context *c, const struct profile *p, const char *stem,
	      const struct data_gap *g, size_t ng,
	      const struct output_format *const *fmts, size_t nf)
{
	struct site_entry	e = {
		.host = p->host, .name = place_of(p)->label ? place_of(p)->label : p->name,
		.event = c->emit.event,
		.pid = p->pid, .start = p->start, .end = p->end, .samples = p->samples,
		.stem = stem, .nexts = nf, .gaps = g, .ngaps = ng,
	};
	size_t			f;

	for (f = 0; f < nf; f++)
		e.exts[f] = fmts[f]->ext;
	return e;
}

int
output_write(struct output_context *c, const struct profile *p, size_t n,
	     char *err, size_t errlen)
{
	const struct output_format	*fmts[OUTPUT_MAX_FORMATS];
	struct sink_stage		**stages;
	struct site_entry		*entries;
	struct data_gap			*gaps;		/* c->ngaps per profile */
	size_t				*ngaps;
	struct profile_names {
		char	dir[300], stem[384];
	}				*names;
	size_t				i, nf, k = 0;
	int				sts = 0;

	if (c->sink == NULL)
		return write_stdout(c, p, n, err, errlen);
	stages = calloc(n * OUTPUT_MAX_FORMATS + 1, sizeof(*stages));
	entries = calloc(n + 1, sizeof(*entries));
	names = calloc(n + 1, sizeof(*names));
	gaps = calloc(n * c->ngaps + 1, sizeof(*gaps));
	ngaps = calloc(n + 1, sizeof(*ngaps));
	if (stages == NULL || entries == NULL || names == NULL || gaps == NULL || ngaps == NULL) {
		snprintf(err, errlen, "out of memory");
		sts = -1;
		goto out;
	}
	/* everything rendered before anything is seen */
	for (i = 0; i < n && sts == 0; i++) {
		nf = formats_of(c, &p[i], fmts);
		ngaps[i] = gaps_of(c, &p[i], &gaps[i * c->ngaps]);
		profile_stem(c, &p[i], names[i].dir, sizeof(names[i].dir), names[i].stem,
			     sizeof(names[i].stem));
		sts = stage_profile(c, &p[i], names[i].stem, &gaps[i * c->ngaps], ngaps[i], fmts, nf,
				    &stages[i * OUTPUT_MAX_FORMATS], err, errlen);
	}
	for (i = 0; i < n && sts == 0; i++) {
		if ((nf = formats_of(c, &p[i], fmts)) == 0)
			continue;
		sts = commit_profile(c, &p[i], names[i].dir, fmts, nf, &stages[i * OUTPUT_MAX_FORMATS],
				     err, errlen);
		entries[k++] = site_entry_of(c, &p[i], names[i].stem, &gaps[i * c->ngaps], ngaps[i],
					     fmts, nf);
	}
	if (sts == 0 && k > 0)
		sts = site_update(c->sink, entries, k, err, errlen);
out:
	for (i = 0; stages != NULL && i < n * OUTPUT_MAX_FORMATS; i++)
		sink_stage_abort(stages[i]);
	free(stages);
	free(entries);
	free(names);
	free(gaps);
	free(ngaps);
	return sts;
}
