/*
 * output.c - the format table, file naming, and the step from finished
 * profiles to objects in a sink (or one output on stdout).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcp/pmapi.h>
#include "output.h"
#include "site.h"
#include "common/util.h"
#include "emit/emit_export.h"

static int
render_json(const struct profile *p, const struct emit_options *o, struct membuf *out)
{
	(void)o;
	return emit_json(p->tree, out);
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

static const struct output_format formats[] = {
	{ "json",	"json",		"application/json",		render_json },
	{ "svg",	"svg",		"image/svg+xml",		render_svg },
	{ "folded",	"folded",	"text/plain; charset=utf-8",	render_folded },
	{ "pprof",	"pb.gz",	"application/gzip",		emit_pprof },
	{ "speedscope",	"speedscope.json", "application/json",		emit_speedscope },
	{ "grafana",	"grafana.json",	"application/json",		emit_grafana },
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

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

/* "12:00:00" style times in the reporting zone (-Z/-z), for humans. */
static void
human_time(double t, char *buf, size_t len)
{
	time_t		secs = (time_t)t;
	struct tm	tm;

	pmLocaltime(&secs, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S %Z", &tm);
}

static void
subtitle(const struct output_context *c, const struct profile *p, char *buf, size_t len)
{
	char	from[64], to[64];

	human_time(p->start, from, sizeof(from));
	human_time(p->end, to, sizeof(to));
	if (p->start == p->end)
		snprintf(buf, len, "%s %s, %s", c->source, p->host, to);
	else
		snprintf(buf, len, "%s %s, %s to %s", c->source, p->host, from, to);
}

/* "HOST/NAME/START_END" */
static void
profile_stem(const struct profile *p, char *dir, size_t dirlen, char *stem, size_t stemlen)
{
	char	host[128], name[128], pname[160], from[32], to[32];

	sink_safe_name(p->host, host, sizeof(host));
	if (p->pid != 0) {
		snprintf(pname, sizeof(pname), "%s.%u", p->name, p->pid);
		sink_safe_name(pname, name, sizeof(name));
	} else
		sink_safe_name(p->name, name, sizeof(name));
	output_time_name(p->start, from, sizeof(from));
	output_time_name(p->end, to, sizeof(to));
	snprintf(dir, dirlen, "%s/%s", host, name);
	snprintf(stem, stemlen, "%s/%s_%s", dir, from, to);
}

static int
render_all(struct output_context *c, const struct profile *p, struct membuf *bufs,
	   char *err, size_t errlen)
{
	char	sub[256];
	size_t	f;
	int	sts;

	subtitle(c, p, sub, sizeof(sub));
	c->emit.subtitle = sub;
	for (f = 0; f < c->nformats; f++) {
		membuf_init(&bufs[f]);
		sts = c->formats[f]->render(p, &c->emit, &bufs[f]);
		if (sts < 0 || bufs[f].failed) {
			snprintf(err, errlen, "cannot render %s of %s on %s: %s",
				 c->formats[f]->name, p->name, p->host,
				 strerror(sts < 0 ? -sts : ENOMEM));
			c->emit.subtitle = NULL;
			return -1;
		}
	}
	c->emit.subtitle = NULL;
	return 0;
}

static int
write_stdout(struct output_context *c, const struct profile *p, size_t n,
	     char *err, size_t errlen)
{
	struct membuf	buf;
	int		sts = 0;

	if (n != 1 || c->nformats != 1) {
		snprintf(err, errlen, "%zu profile%s in %zu format%s: give -o DIR to write them all",
			 n, n == 1 ? "" : "s", c->nformats, c->nformats == 1 ? "" : "s");
		return -1;
	}
	if (render_all(c, p, &buf, err, errlen) < 0)
		return -1;
	if (fwrite(buf.data, 1, buf.len, stdout) != buf.len || fflush(stdout) != 0) {
		snprintf(err, errlen, "cannot write to stdout: %s", strerror(errno));
		sts = -1;
	}
	membuf_free(&buf);
	return sts;
}

/* Store one profile's renderings as START_END.EXT and latest.EXT. */
static int
put_profile(struct output_context *c, const char *dir, const char *stem,
	    struct membuf *bufs, char *err, size_t errlen)
{
	char	path[512];
	size_t	f;

	for (f = 0; f < c->nformats; f++) {
		const struct output_format	*fmt = c->formats[f];

		snprintf(path, sizeof(path), "%s.%s", stem, fmt->ext);
		if (sink_put(c->sink, path, fmt->content_type, bufs[f].data, bufs[f].len,
			     err, errlen) < 0)
			return -1;
		snprintf(path, sizeof(path), "%s/latest.%s", dir, fmt->ext);
		if (sink_put(c->sink, path, fmt->content_type, bufs[f].data, bufs[f].len,
			     err, errlen) < 0)
			return -1;
	}
	return 0;
}

int
output_write(struct output_context *c, const struct profile *p, size_t n,
	     char *err, size_t errlen)
{
	struct membuf		*bufs;
	struct site_entry	*entries;
	char			(*stems)[384], dir[300];
	size_t			i, f, done = 0;
	int			sts = 0;

	if (c->sink == NULL)
		return write_stdout(c, p, n, err, errlen);
	bufs = calloc(n * c->nformats + 1, sizeof(*bufs));
	entries = calloc(n + 1, sizeof(*entries));
	stems = calloc(n + 1, sizeof(*stems));
	if (bufs == NULL || entries == NULL || stems == NULL) {
		snprintf(err, errlen, "out of memory");
		sts = -1;
		goto out;
	}
	for (i = 0; i < n && sts == 0; i++, done++)
		sts = render_all(c, &p[i], &bufs[i * c->nformats], err, errlen);
	for (i = 0; i < n && sts == 0; i++) {
		profile_stem(&p[i], dir, sizeof(dir), stems[i], sizeof(stems[i]));
		sts = put_profile(c, dir, stems[i], &bufs[i * c->nformats], err, errlen);
		entries[i] = (struct site_entry){
			.host = p[i].host, .name = p[i].name, .pid = p[i].pid,
			.start = p[i].start, .end = p[i].end, .samples = p[i].samples,
			.stem = stems[i], .nexts = c->nformats,
		};
		for (f = 0; f < c->nformats; f++)
			entries[i].exts[f] = c->formats[f]->ext;
	}
	if (sts == 0)
		sts = site_update(c->sink, entries, n, err, errlen);
out:
	if (bufs != NULL)
		for (i = 0; i < done * c->nformats; i++)
			membuf_free(&bufs[i]);
	free(bufs);
	free(entries);
	free(stems);
	return sts;
}
