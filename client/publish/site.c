/*
 * site.c - index.json and index.html of a sink.
 *
 * index.json is the record of what exists (read back, merged, rewritten);
 * index.html is derived from it every time, so the two never disagree.
 * Every string from a profile (host, process name) is escaped with
 * xml_escape; hrefs are built only from sink_safe_name output and fixed
 * suffixes, and escaped as well.  The page's one script is a constant
 * (site_filter_script): it filters rows by the host, profile and event chosen
 * in three <select>s, comparing the rows' data-* attributes with the
 * options' values, both written here as escaped attributes; it writes
 * nothing but the rows' hidden flags and a count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "common/gaps.h"
#include "common/membuf.h"
#include "emit/emit_csp.h"
#include "emit/emit_export.h"
#include "emit/site_script.h"
#include "emit/live_page.h"
#include "common/text.h"
#include "index_row.h"
#include "site.h"
#include "common/util.h"

#define MANIFEST	"index.json"
#define MANIFEST_TYPE	"application/json"
#define PAGE		"index.html"
#define PAGE_TYPE	"text/html; charset=utf-8"
#define LIVE_PAGE	"live.html"	/* client/web/: the same in every site */
#define VIEW_EXT	"view.json"	/* an archive range for LIVE_PAGE (output.c) */

/* Rows as read from index.json: owned copies. */
struct row {
	char		*host, *name, *stem, *event;
	char		*exts[8];
	size_t		nexts;
	uint32_t	pid;
	double		start, end;
	uint64_t	samples;
	struct data_gap	gaps[SITE_MAX_GAPS];	/* why owned; host unused */
	size_t		ngaps;
};

static void
row_free(struct row *r)
{
	size_t	i;

	free(r->host);
	free(r->name);
	free(r->stem);
	free(r->event);
	for (i = 0; i < r->nexts; i++)
		free(r->exts[i]);
	for (i = 0; i < r->ngaps; i++)
		free((char *)r->gaps[i].why);
}

static void
row_gaps(struct row *r, const struct data_gap *g, size_t n)
{
	size_t	i;

	for (i = 0; i < n && r->ngaps < SITE_MAX_GAPS; i++) {
		struct data_gap	*d = &r->gaps[r->ngaps];

		d->start = g[i].start;
		d->end = g[i].end;
		if ((d->why = strdup(g[i].why ? g[i].why : "")) != NULL)
			r->ngaps++;
	}
}

static int
row_from_entry(struct row *r, const struct site_entry *e)
{
	size_t	i;

	memset(r, 0, sizeof(*r));
	r->host = strdup(e->host);
	r->name = strdup(e->name);
	r->stem = strdup(e->stem);
	r->event = strdup(e->event ? e->event : "");
	r->pid = e->pid;
	r->start = e->start;
	r->end = e->end;
	r->samples = e->samples;
	for (i = 0; i < e->nexts && i < 8; i++)
		if ((r->exts[r->nexts] = strdup(e->exts[i])) != NULL)
			r->nexts++;
	row_gaps(r, e->gaps, e->ngaps);
	return (r->host && r->name && r->stem && r->event) ? 0 : -1;
}

#define DROPS_TOLD	5	/* rows dropped that are told one by one */

/* Rows of index.json text, into *rows with room for extra more; NULL,
 * damaged or foreign text has none, and a row that breaks index_row's
 * rules is dropped with a warning naming where (WHERE) and why.  *rows is
 * NULL only when out of memory. */
static size_t
parse_manifest(const char *text, const char *where, struct row **rows, size_t extra)
{
	size_t		n = 0, cap = extra, at = 0, dropped = 0;
	cJSON		*root = NULL, *list, *item;

	if (text != NULL && (root = cJSON_Parse(text)) != NULL &&
	    cJSON_IsArray(list = cJSON_GetObjectItemCaseSensitive(root, "profiles")))
		cap += (size_t)cJSON_GetArraySize(list);
	if ((*rows = calloc(cap + 1, sizeof(**rows))) == NULL) {
		cJSON_Delete(root);
		return 0;
	}
	if (root == NULL)
		return 0;
	list = cJSON_GetObjectItemCaseSensitive(root, "profiles");
	cJSON_ArrayForEach(item, list) {
		struct site_entry	e;
		struct data_gap		g[SITE_MAX_GAPS];
		const char		*why;

		at++;
		if (n >= cap)
			continue;
		if (index_row_read(item, &e, g, &why) < 0) {
			if (dropped++ < DROPS_TOLD)
				fprintf(stderr, "pmflame: warning: %s: profile %zu of %s dropped: %s\n",
					where, at, MANIFEST, why);
			continue;
		}
		if (row_from_entry(&(*rows)[n], &e) == 0)
			n++;
		else
			row_free(&(*rows)[n]);
	}
	if (dropped > DROPS_TOLD)
		fprintf(stderr, "pmflame: warning: %s: %zu more profiles of %s dropped\n", where,
			dropped - DROPS_TOLD, MANIFEST);
	cJSON_Delete(root);
	return n;
}

/* Rows of the sink's index.json; a missing or damaged one is empty. */
static size_t
read_manifest(struct sink *s, struct row **rows, size_t extra)
{
	char	*data = NULL;
	size_t	len, n;

	if (sink_get(s, MANIFEST, &data, &len) != 0) {
		free(data);
		data = NULL;
	}
	n = parse_manifest(data, s->target, rows, extra);
	free(data);
	return n;
}

/* Newest first; ties broken by everything else, so the order is stable. */
static int
row_cmp(const void *a, const void *b)
{
	const struct row	*x = a, *y = b;
	int			c;

	if (x->end != y->end)
		return x->end < y->end ? 1 : -1;
	if (x->start != y->start)
		return x->start < y->start ? 1 : -1;
	if ((c = strcmp(x->host, y->host)) != 0)
		return c;
	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	return strcmp(x->stem, y->stem);
}

/* "gaps": [{"start": T, "end": T, "why": "pmcd restarted, ..."}] */
static void
manifest_gaps(cJSON *list, const struct row *r)
{
	size_t	i;

	for (i = 0; list != NULL && i < r->ngaps; i++) {
		cJSON	*g = cJSON_CreateObject();

		cJSON_AddNumberToObject(g, "start", r->gaps[i].start);
		cJSON_AddNumberToObject(g, "end", r->gaps[i].end);
		cJSON_AddStringToObject(g, "why", r->gaps[i].why);
		cJSON_AddItemToArray(list, g);
	}
}

static char *
manifest_text(const struct row *rows, size_t n)
{
	cJSON	*root = cJSON_CreateObject(), *list;
	char	*text;
	size_t	i, f;

	cJSON_AddNumberToObject(root, "version", 1);
	list = cJSON_AddArrayToObject(root, "profiles");
	for (i = 0; i < n; i++) {
		cJSON	*o = cJSON_CreateObject(), *fl;

		cJSON_AddStringToObject(o, "host", rows[i].host);
		cJSON_AddStringToObject(o, "profile", rows[i].name);
		if (rows[i].event[0])
			cJSON_AddStringToObject(o, "event", rows[i].event);
		cJSON_AddNumberToObject(o, "pid", rows[i].pid);
		cJSON_AddNumberToObject(o, "start", rows[i].start);
		cJSON_AddNumberToObject(o, "end", rows[i].end);
		cJSON_AddNumberToObject(o, "samples", (double)rows[i].samples);
		cJSON_AddStringToObject(o, "path", rows[i].stem);
		fl = cJSON_AddArrayToObject(o, "formats");
		for (f = 0; f < rows[i].nexts; f++)
			cJSON_AddItemToArray(fl, cJSON_CreateString(rows[i].exts[f]));
		if (rows[i].ngaps > 0)
			manifest_gaps(cJSON_AddArrayToObject(o, "gaps"), &rows[i]);
		cJSON_AddItemToArray(list, o);
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

/* What the profile misses, under its name. */
static void
html_gaps(struct membuf *m, const struct row *r)
{
	struct membuf	text;

	if (r->ngaps == 0)
		return;
	membuf_init(&text);
	gaps_describe(&text, r->gaps, r->ngaps);
	membuf_append(&text, "", 0);
	membuf_puts(m, "<br><small class=\"gap\">");
	if (!text.failed)
		xml_escape(m, text.data);
	membuf_puts(m, "</small>");
	membuf_free(&text);
}

/* What a row is, from the stem's place suffix (output.c's places). */
static const char *
row_kind(const struct row *r)
{
	if (strstr(r->stem, "-diff") != NULL)
		return "diff";
	if (strstr(r->stem, "-heatmap") != NULL)
		return "heat map";
	return "flame";
}

/* What the row's number counts: samples, or the event's own measure
 * (microseconds blocked off-CPU, estimated page faults). */
static const char *
row_unit(const struct row *r)
{
	const char	*unit = event_measure(r->event[0] ? r->event : "on-cpu")->count_name;

	return strcmp(unit, "us") == 0 ? "&#181;s" : unit;
}

/* An archive range's values open in the live page: "view" ->
 * live.html#file=STEM.view.json.  The stem is sink_safe_name output;
 * '+' is escaped, as the page's URLSearchParams would read a space. */
static void
html_view_link(struct membuf *m, const struct row *r)
{
	const char	*p;

	membuf_puts(m, "<a href=\"" LIVE_PAGE "#file=");
	for (p = r->stem; *p; p++) {
		if (*p == '+')
			membuf_puts(m, "%2B");
		else {
			char	c[2] = { *p, 0 };

			xml_escape(m, c);
		}
	}
	membuf_puts(m, "." VIEW_EXT "\">view</a> ");
}

static void
html_row(struct membuf *m, const struct row *r)
{
	char	from[32], to[32];
	size_t	f;

	utc_strftime(r->start, "%Y-%m-%d %H:%M:%S", from, sizeof(from));
	utc_strftime(r->end, r->end - r->start < 86400 ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S",
		     to, sizeof(to));
	membuf_printf(m, "<tr%s data-host=\"", strcmp(row_kind(r), "diff") == 0 ?
		      " class=\"diff\"" : "");
	xml_escape(m, r->host);
	membuf_puts(m, "\" data-profile=\"");
	xml_escape(m, r->name);
	membuf_puts(m, "\" data-event=\"");
	xml_escape(m, r->event);
	if (r->start == r->end)		/* folded input: one point in time */
		membuf_printf(m, "\"><td>%s</td><td>", from);
	else
		membuf_printf(m, "\"><td>%s &#8211; %s</td><td>", from, to);
	xml_escape(m, r->host);
	membuf_puts(m, "</td><td>");
	xml_escape(m, r->name);
	if (r->pid)
		membuf_printf(m, " (%u)", r->pid);
	html_gaps(m, r);
	membuf_puts(m, "</td><td>");
	xml_escape(m, r->event);
	membuf_printf(m, "</td><td>%s</td><td class=\"n\">%llu %s</td><td>", row_kind(r),
		      (unsigned long long)r->samples, row_unit(r));
	for (f = 0; f < r->nexts; f++) {
		if (strcmp(r->exts[f], VIEW_EXT) == 0) {
			html_view_link(m, r);
			continue;
		}
		membuf_puts(m, "<a href=\"");
		xml_escape(m, r->stem);
		membuf_puts(m, ".");
		xml_escape(m, r->exts[f]);
		membuf_puts(m, "\">");
		xml_escape(m, r->exts[f]);
		membuf_puts(m, "</a> ");
	}
	membuf_puts(m, "</td></tr>\n");
}


static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A <select> of the distinct values of one column, sorted, "" = any. */
static void
html_select(struct membuf *m, const char *key, const char *label, const struct row *rows,
	    size_t n, size_t field)
{
	const char	**v = calloc(n + 1, sizeof(*v));
	size_t		i;

	membuf_printf(m, "<label>%s <select id=\"filter-%s\"><option value=\"\">any</option>",
		      label, key);
	for (i = 0; v != NULL && i < n; i++)
		v[i] = field == 0 ? rows[i].host : field == 1 ? rows[i].name : rows[i].event;
	if (v != NULL)
		qsort(v, n, sizeof(*v), compare_strings);
	for (i = 0; v != NULL && i < n; i++) {
		if (v[i][0] == '\0' || (i > 0 && strcmp(v[i], v[i - 1]) == 0))
			continue;
		membuf_puts(m, "<option value=\"");
		xml_escape(m, v[i]);
		membuf_puts(m, "\">");
		xml_escape(m, v[i]);
		membuf_puts(m, "</option>");
	}
	if (v == NULL)
		m->failed = 1;
	free(v);
	membuf_puts(m, "</select></label>\n");
}

static void
html_text(struct membuf *m, const struct row *rows, size_t n)
{
	size_t	i;
	char	hash[80];

	if (emit_csp_script_hash(site_filter_script, hash, sizeof(hash)) < 0) {
		m->failed = 1;
		return;
	}
	/* the filter (by its hash), its own style, links: nothing else may load */
	membuf_printf(m,
		"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"script-src %s; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n",
		hash);
	membuf_puts(m,
		"<title>Flame graphs</title>\n<style>\n"
		"body{font-family:sans-serif;margin:1em 2em}\n"
		"table{border-collapse:collapse}\n"
		"td,th{padding:2px 10px;text-align:left;border-bottom:1px solid #ddd}\n"
		"td.n{text-align:right}\n"
		"label{margin-right:1em}\n"
		"small.gap{color:#a00}\n"
		"tr.diff td{background:#fff0f0}\n"
		"</style>\n</head>\n<body>\n<h1>Flame graphs</h1>\n");
	membuf_puts(m, "<p><a href=\"" LIVE_PAGE "\">Live page</a>: the hosts now, "
		       "through pmproxy.</p>\n");
	membuf_printf(m, "<p>%zu profile%s, newest first; times in UTC; "
		      "<span id=\"shown\">%zu</span> shown.</p>\n<form id=\"filters\">\n",
		      n, n == 1 ? "" : "s", n);
	html_select(m, "host", "Host", rows, n, 0);
	html_select(m, "profile", "Process", rows, n, 1);
	html_select(m, "event", "Event", rows, n, 2);
	membuf_puts(m, "</form>\n<table id=\"profiles\">\n<thead><tr><th>Time range</th>"
		       "<th>Host</th><th>Process</th><th>Event</th><th>Kind</th><th>Total</th><th>Files</th>"
		       "</tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++)
		html_row(m, &rows[i]);
	membuf_puts(m, "</tbody>\n</table>\n<script>\n");
	membuf_puts(m, site_filter_script);
	membuf_puts(m, "</script>\n</body>\n</html>\n");
}

static struct site_entry
entry_of_row(const struct row *r)
{
	struct site_entry	e = {
		.host = r->host, .name = r->name, .event = r->event, .pid = r->pid, .start = r->start,
		.end = r->end, .samples = r->samples, .stem = r->stem, .nexts = r->nexts,
		.gaps = r->gaps, .ngaps = r->ngaps,
	};

	for (size_t i = 0; i < r->nexts; i++)
		e.exts[i] = r->exts[i];
	return e;
}

/* The formats row old had that r lacks: a range rerun with other formats
 * leaves the earlier files in place, so their links stay. */
static void
keep_formats(struct row *r, struct row *old)
{
	size_t	i, k;

	for (i = 0; i < old->nexts; i++) {
		for (k = 0; k < r->nexts && strcmp(r->exts[k], old->exts[i]) != 0; k++)
			;
		if (k == r->nexts && r->nexts < 8) {
			r->exts[r->nexts++] = old->exts[i];
			old->exts[i] = NULL;
		}
	}
}

/* Replace rows with the same stem (a period rewritten, a range rerun),
 * keeping the links of formats only the old row had; append the rest. */
static size_t
merge(struct row *rows, size_t n, const struct site_entry *e, size_t ne)
{
	size_t		i, j;
	struct row	old;
	int		sts;

	for (j = 0; j < ne; j++) {
		for (i = 0; i < n && strcmp(rows[i].stem, e[j].stem) != 0; i++)
			;
		memset(&old, 0, sizeof(old));
		if (i < n)
			old = rows[i];
		sts = row_from_entry(&rows[i], &e[j]);
		if (sts == 0)
			keep_formats(&rows[i], &old);
		row_free(&old);
		if (sts < 0) {
			row_free(&rows[i]);
			if (i < n)	/* keep the array dense */
				rows[i] = rows[--n];
			continue;
		}
		if (i == n)
			n++;
	}
	return n;
}

static void
rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		row_free(&rows[i]);
	free(rows);
}

/* Sort and trim rows, then both files' text; -1 when out of memory. */
static int
render(struct row *rows, size_t *n, char **json, struct membuf *html)
{
	qsort(rows, *n, sizeof(*rows), row_cmp);
	while (*n > SITE_MAX_ENTRIES)
		row_free(&rows[--*n]);
	membuf_init(html);
	html_text(html, rows, *n);
	*json = manifest_text(rows, *n);
	if (*json == NULL || html->failed) {
		free(*json);
		*json = NULL;
		membuf_free(html);
		return -1;
	}
	return 0;
}

int
site_update(struct sink *s, const struct site_entry *e, size_t ne, char *err, size_t errlen)
{
	struct row	*rows = NULL;
	struct membuf	html;
	char		*json;
	size_t		n;
	int		sts = -1;

	sink_lock(s);	/* two runs writing one DIR must not drop each other's rows */
	n = read_manifest(s, &rows, ne);
	if (rows == NULL) {
		sink_unlock(s);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n = merge(rows, n, e, ne);
	if (render(rows, &n, &json, &html) < 0)
		snprintf(err, errlen, "out of memory");
	else {
		if (sink_put(s, MANIFEST, MANIFEST_TYPE, json, strlen(json), err, errlen) == 0 &&
		    sink_put(s, PAGE, PAGE_TYPE, html.data, html.len,
			     err, errlen) == 0 &&
		    /* every sink: from a bucket's origin the page reaches pmproxy
		     * by CORS (pmproxy allows any origin), as from a directory's */
		    sink_put(s, LIVE_PAGE, PAGE_TYPE, live_page_html, strlen(live_page_html),
			     err, errlen) == 0)
			sts = 0;
		free(json);
		membuf_free(&html);
	}
	sink_unlock(s);
	rows_free(rows, n);
	return sts;
}

int
site_merge_text(const char *newer, const char *older, char **json, struct membuf *html)
{
	struct row	*old_rows, *new_rows;
	size_t		nold, nnew, n;
	int		sts = -1;

	nnew = parse_manifest(newer, "the spooled index", &new_rows, 0);
	nold = parse_manifest(older, "the index a spooled one joins", &old_rows, nnew);
	if (new_rows != NULL && old_rows != NULL) {
		n = nold;
		for (size_t i = 0; i < nnew; i++) {
			struct site_entry	e = entry_of_row(&new_rows[i]);

			n = merge(old_rows, n, &e, 1);
		}
		sts = render(old_rows, &n, json, html);
		nold = n;
	}
	if (new_rows != NULL)
		rows_free(new_rows, nnew);
	if (old_rows != NULL)
		rows_free(old_rows, nold);
	return sts;
}

const struct index_merge site_index_merge = {
	MANIFEST, MANIFEST_TYPE, PAGE, PAGE_TYPE, site_merge_text,
};
