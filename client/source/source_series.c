/*
 * source_series.c - profiles from the history values pmseries holds, read
 * through pmproxy's REST API (/series/query, /labels, /values); see
 * docs/design.md, "pmseries".
 *
 * pmseries keeps a string value byte for byte, one stream per host (the
 * source's hostname label), in time order.  So the values are the ones the
 * archives held, and go through the archive reader's own history decoder
 * and range rule (fetch_history_text): the same records, the same profiles.
 * As in an archive, definitions come once, and again in each keyframe: a
 * stream is read from a keyframe before the range (or its first value) up
 * to the first record past the range.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fetch.h"
#include "history.h"
#include "series_prefetch.h"
#include "series_rest.h"
#include "source.h"
#include "common/util.h"

/* Values per /series/values request while looking for a keyframe or past
 * the range's end (reading stops inside the page, so small pages waste
 * little), and at most per request bounded by the range's end (pmproxy's
 * cost follows the values it sends; a round trip each page costs more
 * than the last page's few values past the range: bench/series). */
#define PAGE		250
#define RANGE_PAGE	5000
#define META_BATCH	50	/* series ids per /series/labels request */
/* How far before a range the reader looks for a keyframe when the stream
 * does not say where they are (an older PMDA's): the default period (1800 s,
 * stackprof.control.keyframe_s) and some; twice as far each time none is
 * found. */
#define KEY_SPAN	2000.0
/* A keyframe stating its period P is logged at the first value after a
 * multiple of P seconds whose drain is past it: within a drain interval
 * and a logging interval of the multiple.  A range starting this close
 * after one is read from the multiple before. */
#define KEY_LAG		120.0

struct series {
	char		id[48];
	char		host[PM_MAX_HOSTNAMELEN];
	double		first, last;	/* its oldest and newest values */
	int		first_period;	/* the first value's keyframe_period() */
	double		start, end;	/* the requested window, clipped */
};

struct run {
	const struct series_options	*o;
	const struct source_consumer	*c;
	struct series_rest		*rest;
	struct series_prefetch		*ahead;		/* each series' first page, or NULL */
	struct series			*v;
	int				n, cap;
	char				*err;
	size_t				errlen;
};

static int
add_id(struct run *r, const char *id)
{
	int	i;

	if (strlen(id) >= sizeof(r->v[0].id)) {
		snprintf(r->err, r->errlen, "pmproxy gave a malformed series id");
		return -1;
	}
	for (i = 0; i < r->n; i++)
		if (strcmp(r->v[i].id, id) == 0)
			return 0;
	if (r->n == r->cap) {
		int		cap = r->cap ? 2 * r->cap : 16;
		struct series	*v = realloc(r->v, (size_t)cap * sizeof(*v));

		if (v == NULL) {
			snprintf(r->err, r->errlen, "out of memory");
			return -1;
		}
		r->v = v;
		r->cap = cap;
	}
	memset(&r->v[r->n], 0, sizeof(r->v[0]));
	snprintf(r->v[r->n++].id, sizeof(r->v[0].id), "%s", id);
	return 0;
}

/* The series ids one expression names. */
static int
query(struct run *r, const char *expr)
{
	char		*e = series_rest_escape(r->rest, expr), *q;
	const cJSON	*id;
	cJSON		*j;
	int		sts = 0;

	if (e == NULL || (q = malloc(strlen(e) + 8)) == NULL) {
		free(e);
		snprintf(r->err, r->errlen, "out of memory");
		return -1;
	}
	sprintf(q, "expr=%s", e);
	free(e);
	j = series_rest_get(r->rest, "query", q, r->err, r->errlen);
	free(q);
	if (j == NULL)
		return -1;
	if (!cJSON_IsArray(j)) {
		snprintf(r->err, r->errlen, "pmproxy /series/query %s: not a list of series", expr);
		sts = -1;
	}
	cJSON_ArrayForEach(id, j)
		if (sts == 0 && cJSON_IsString(id))
			sts = add_id(r, id->valuestring);
	cJSON_Delete(j);
	return sts;
}

/* Which expressions: --query, else the history metric, per -h host. */
static int
find_series(struct run *r)
{
	const struct series_options	*o = r->o;
	char				expr[1024];
	int				i;

	if (o->query)
		return query(r, o->query);
	if (o->nhosts == 0)
		return query(r, o->metrics->history);
	for (i = 0; i < o->nhosts; i++) {
		if (strpbrk(o->hosts[i], "\"\\") != NULL) {
			snprintf(r->err, r->errlen, "-h %s: a host name holds no quote or backslash",
				 o->hosts[i]);
			return -1;
		}
		snprintf(expr, sizeof(expr), "%s{hostname==\"%s\"}", o->metrics->history,
			 o->hosts[i]);
		if (query(r, expr) < 0)
			return -1;
	}
	return 0;
}

static struct series *
by_id(struct run *r, const char *id)
{
	int	i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->v[i].id, id) == 0)
			return &r->v[i];
	return NULL;
}

/* GET WHAT?series=ids of v[i..i+META_BATCH) */
static cJSON *
get_batch(struct run *r, const char *what, int i)
{
	char	q[16 + META_BATCH * sizeof(r->v[0].id)];
	size_t	len = (size_t)snprintf(q, sizeof(q), "series=");
	int	k;

	for (k = i; k < r->n && k < i + META_BATCH; k++)
		len += (size_t)snprintf(q + len, sizeof(q) - len, "%s%s", k > i ? "," : "",
					r->v[k].id);
	return series_rest_get(r->rest, what, q, r->err, r->errlen);
}

/*
 * Each series' host, and with --query, that it is the history: an
 * expression may name any metric, and only this one can be read.
 */
static int
describe(struct run *r)
{
	const cJSON	*e;
	cJSON		*j;
	int		i;

	for (i = 0; i < r->n; i += META_BATCH) {
		if ((j = get_batch(r, "metrics", i)) == NULL)
			return -1;
		cJSON_ArrayForEach(e, j) {
			const cJSON	*id = cJSON_GetObjectItemCaseSensitive(e, "series");
			const cJSON	*name = cJSON_GetObjectItemCaseSensitive(e, "name");

			if (cJSON_IsString(id) && cJSON_IsString(name) &&
			    strcmp(name->valuestring, r->o->metrics->history) != 0 &&
			    by_id(r, id->valuestring) != NULL) {
				snprintf(r->err, r->errlen, "--query %s: series %s is %s; only %s "
					 "can be read (add it to the expression: %s{...})",
					 r->o->query ? r->o->query : "", id->valuestring,
					 name->valuestring, r->o->metrics->history,
					 r->o->metrics->history);
				cJSON_Delete(j);
				return -1;
			}
		}
		cJSON_Delete(j);
		if ((j = get_batch(r, "labels", i)) == NULL)
			return -1;
		cJSON_ArrayForEach(e, j) {
			const cJSON	*id = cJSON_GetObjectItemCaseSensitive(e, "series");
			const cJSON	*l = cJSON_GetObjectItemCaseSensitive(e, "labels");
			const cJSON	*h = cJSON_GetObjectItemCaseSensitive(l, "hostname");
			struct series	*s = cJSON_IsString(id) ? by_id(r, id->valuestring) : NULL;

			if (s != NULL && cJSON_IsString(h))
				snprintf(s->host, sizeof(s->host), "%s", h->valuestring);
		}
		cJSON_Delete(j);
	}
	for (i = 0; i < r->n; i++)	/* no hostname label: the series names it */
		if (r->v[i].host[0] == '\0')
			snprintf(r->v[i].host, sizeof(r->v[i].host), "series-%.12s", r->v[i].id);
	return 0;
}

/* Up to samples of a series' values from start (s; NAN: the newest) to
 * finish (NAN: none), oldest first. */
#define VALUES_QUERY	192

static void
values_query(char *q, const struct series *s, double start, double finish, int samples)
{
	int	n = snprintf(q, VALUES_QUERY, "series=%s&samples=%d", s->id, samples);

	if (!isnan(start))
		n += snprintf(q + n, VALUES_QUERY - (size_t)n, "&start=%.3f", start);
	if (!isnan(finish))
		snprintf(q + n, VALUES_QUERY - (size_t)n, "&finish=%.3f", finish);
}

static cJSON *
values(struct run *r, const struct series *s, double start, double finish, int samples)
{
	char	q[VALUES_QUERY];

	values_query(q, s, start, finish, samples);
	return series_rest_get(r->rest, "values", q, r->err, r->errlen);
}

/* The period the value e states, if it is a keyframe: P, 0 (a keyframe of
 * an older PMDA, which states none) or -1 (not a keyframe). */
static int
keyframe_period(const cJSON *e)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(e, "value");
	char		*text = cJSON_IsString(v) ? series_value_string(v->valuestring) : NULL;
	int		period = text != NULL ? history_keyframe_period(text, strlen(text)) : -1;

	free(text);
	return period;
}

/* A value's time in ms (pmproxy 6.0 writes the µs after the point unpadded:
 * only the milliseconds are sure). */
static double
value_ms(const cJSON *e)
{
	const cJSON	*t = cJSON_GetObjectItemCaseSensitive(e, "timestamp");

	return cJSON_IsNumber(t) ? floor(t->valuedouble) : NAN;
}

/* The time of s's value at or after start (NAN: its newest), and its
 * keyframe_period() if period. */
static int
one_value_ms(struct run *r, const struct series *s, double start, double *ms, int *period)
{
	cJSON	*j = values(r, s, start, NAN, 1);

	if (j == NULL)
		return -1;
	*ms = value_ms(cJSON_GetArrayItem(j, 0));
	if (period)
		*period = keyframe_period(cJSON_GetArrayItem(j, 0));
	cJSON_Delete(j);
	if (isnan(*ms)) {
		snprintf(r->err, r->errlen, "pmproxy: series %s (host %s) has no values", s->id,
			 s->host);
		return -1;
	}
	return 0;
}

/* -S/-T as PCP tools read them, against what the series holds. */
static int
window(struct run *r, struct series *s)
{
	const struct series_options	*o = r->o;
	struct timespec			first, last, start, end, origin;
	char				*msg = NULL, a[64], b[64];
	double				ms;

	if (one_value_ms(r, s, 0, &ms, &s->first_period) < 0)
		return -1;
	s->first = ms / 1000;
	if (one_value_ms(r, s, NAN, &ms, NULL) < 0)
		return -1;
	s->last = ms / 1000 + 0.001;	/* the newest value's millisecond, whole */
	first.tv_sec = (time_t)floor(s->first);
	first.tv_nsec = (long)((s->first - floor(s->first)) * 1e9);
	last.tv_sec = (time_t)floor(s->last);
	last.tv_nsec = (long)((s->last - floor(s->last)) * 1e9);
	if (pmParseHighResTimeWindow(o->start, o->finish, o->align, o->origin, &first, &last,
				     &start, &end, &origin, &msg) < 0) {
		snprintf(r->err, r->errlen, "host %s: bad time window: %s", s->host,
			 msg ? msg : "cannot parse");
		free(msg);
		return -1;
	}
	free(msg);
	s->start = start.tv_sec + start.tv_nsec / 1e9;
	s->end = end.tv_sec + end.tv_nsec / 1e9;
	if (s->start < s->end)
		return 0;
	zone_time(s->first, a, sizeof(a));
	zone_time(s->last, b, sizeof(b));
	snprintf(r->err, r->errlen, "host %s: empty time range: pmseries holds %s to %s of it",
		 s->host, a, b);
	return -1;
}

/* Whether the value e of a /series/values answer is a keyframe. */
static bool
is_keyframe(const cJSON *e)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(e, "value");
	char		*text = cJSON_IsString(v) ? series_value_string(v->valuestring) : NULL;
	bool		key = text != NULL && history_is_keyframe(text, strlen(text));

	free(text);
	return key;
}

/*
 * Where reading s for a range from t (its edge) starts, for the reader to
 * look forward for a keyframe at or before t (pmseries has no backward
 * read): the multiple of the period the stream's keyframes state before
 * t (KEY_LAG), else t - KEY_SPAN for a PMDA that states none, else 0 (the
 * first value).  Only when the stream's first value is a keyframe: one
 * written without them, or whose start stream.maxlen cut, is read from
 * its start as before.
 */
static double
seek_start(const struct run *r, const struct series *s, double t)
{
	double	from = 0;

	if (!r->o->start || t <= s->first)
		return 0;
	if (s->first_period > 0)
		from = floor((t - KEY_LAG) / s->first_period) * s->first_period;
	else if (s->first_period == 0)
		from = t - KEY_SPAN;
	return from > s->first ? from : 0;
}

/* One value e of s, read forward for range: while seeking, skipped up to
 * the first keyframe (*seeking cleared) or, past the range's edge with
 * none, false to look twice as far back (*next, *span); else decoded into
 * the consumer. */
static bool
take_value(struct run *r, const struct series *s, const cJSON *e, struct fetch_set *f,
	   const struct fetch_range *range, struct fetch_counts *n, bool *seeking,
	   double *next, double *span, int *sts)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(e, "value");
	char		*text;

	if (!isnan(value_ms(e)))	/* a series logs once a ms at most */
		*next = (value_ms(e) + 1) / 1000;
	if (*seeking && value_ms(e) / 1000 > range->near_from) {
		/* no keyframe in the span: one twice as long, else the start */
		*span *= 2;
		*next = range->near_from - *span > s->first ? range->near_from - *span : 0;
		*seeking = *next > 0;
		return false;
	}
	if (*seeking && !is_keyframe(e))
		return true;
	if (*seeking && pmDebugOptions.appl0)	/* qa 244 checks where */
		fprintf(stderr, "%s: host %s: series read from the keyframe at %.3f\n",
			pmGetProgname(), s->host, value_ms(e) / 1000);
	*seeking = false;
	text = cJSON_IsString(v) ? series_value_string(v->valuestring) : NULL;
	if (text == NULL)
		n->records.malformed++;
	else if (*sts == 0)
		*sts = fetch_history_text(f, text, s->host, range, r->c, n);
	free(text);
	return true;
}

/* The drains s is read for, and the time its reading starts from. */
static double
plan_read(const struct run *r, const struct series *s, struct fetch_range *range)
{
	const struct source_consumer	*c = r->c;

	*range = (struct fetch_range){
		.from = r->o->start ? s->start : -INFINITY,
		.to = r->o->finish ? s->end : INFINITY,
	};
	range->near_from = c->counters ? fmin(range->from, s->start - SOURCE_EDGE) : range->from;
	range->near_to = c->counters ? fmax(range->to, s->end + SOURCE_EDGE) : range->to;
	return seek_start(r, s, range->near_from);
}

/* A page's end: a logging lag past the range, when it has an end. */
static double
page_finish(const struct fetch_range *range)
{
	return isfinite(range->near_to) ? range->near_to + KEY_LAG : NAN;
}

/* The query of s's first page, the one series_prefetch asks for ahead. */
static void
first_query(const struct run *r, const struct series *s, char *q)
{
	struct fetch_range	range;
	double			from = plan_read(r, s, &range);

	values_query(q, s, from, page_finish(&range), RANGE_PAGE);
}

/*
 * Every value of s from a keyframe before the range (or its first) until
 * the first record after the range: pages of up to RANGE_PAGE values that
 * end a logging lag past the range (the first, asked for ahead, nearly
 * always holds all), then pages of PAGE until that record or the
 * stream's end; while a keyframe is looked for further back, pages of
 * PAGE.
 */
static int
read_series(struct run *r, const struct series *s, struct window *w)
{
	struct fetch_range		range;
	struct fetch_counts		n = { .records = { .first = INFINITY },
					      .first = INFINITY };
	struct fetch_set		f;
	double				next = plan_read(r, s, &range), span;
	bool				seeking = next > 0, first = true, past_bound = false;
	bool				more = true;
	int				sts;

	span = range.near_from - next;	/* looked back; twice as far next time */
	if ((sts = fetch_history_init(&f, r->o->metrics)) < 0)
		return sts;
	while (sts == 0 && more && n.records.after == 0 && !source_stop) {
		bool		bounded = first || (!seeking && !past_bound);
		double		finish = bounded ? page_finish(&range) : NAN;
		int		asked = bounded ? RANGE_PAGE : PAGE, got;
		cJSON		*j;
		const cJSON	*e;

		if (first && r->ahead != NULL)
			j = series_prefetch_take(r->ahead, (int)(s - r->v), r->err, r->errlen);
		else
			j = values(r, s, next, finish, asked);
		first = false;
		if (j == NULL) {
			sts = -1;
			break;
		}
		got = cJSON_GetArraySize(j);
		cJSON_ArrayForEach(e, j)
			if (!take_value(r, s, e, &f, &range, &n, &seeking, &next, &span, &sts))
				break;		/* seek again from further back */
		cJSON_Delete(j);
		if (got == asked || e != NULL)	/* a full page, or seeking again */
			continue;
		more = !isnan(finish);		/* the stream's end, or the bound's */
		past_bound = true;
	}
	fetch_free(&f);
	if (sts < 0)
		return sts;
	if (n.records.malformed)
		fprintf(stderr, "%s: warning: host %s: %lu history lines malformed or naming ids "
			"never defined (did pmseries' stream.maxlen trim the stream's start?)\n",
			pmGetProgname(), s->host, n.records.malformed);
	if (n.in_window > 0 && n.first < w->start)
		w->start = n.first;
	if (n.in_window > 0 && n.last > w->end)
		w->end = n.last;
	return 0;
}

static int
by_host(const void *x, const void *y)
{
	const struct series	*a = x, *b = y;
	int			c = strcmp(a->host, b->host);

	return c ? c : (a->first < b->first ? -1 : a->first > b->first);
}

/* One host's series v[i..j) as one window, like its archives. */
static int
host_read(struct run *r, int i, int j)
{
	const struct source_consumer	*c = r->c;
	struct window			w = { r->v[i].host, r->v[i].start, r->v[i].end };
	int				k, sts;

	for (k = i; k < j; k++) {
		w.start = fmin(w.start, r->v[k].start);
		w.end = fmax(w.end, r->v[k].end);
	}
	sts = c->begin ? c->begin(c->arg, &w) : 0;
	for (k = i; k < j && sts == 0; k++)
		sts = read_series(r, &r->v[k], &w);
	return sts == 0 ? c->end(c->arg, &w) : sts;
}

/* Each series' first page asked for ahead, in the order they are read;
 * without (no memory, no thread), each is asked for when read. */
static void
start_ahead(struct run *r)
{
	size_t	n = r->n > 0 ? (size_t)r->n : 0;
	char	(*q)[VALUES_QUERY] = n ? calloc(n, sizeof(*q)) : NULL;
	const char **qs = n ? calloc(n, sizeof(*qs)) : NULL;

	if (q != NULL && qs != NULL) {
		for (int i = 0; i < r->n; i++) {
			first_query(r, &r->v[i], q[i]);
			qs[i] = q[i];
		}
		r->ahead = series_prefetch_start(r->o->url, qs, r->n);
	}
	free(qs);
	free(q);
}

static int
read_all(struct run *r)
{
	const struct series_options	*o = r->o;
	cJSON				*ping;
	int				i, j, sts = 0;

	if ((ping = series_rest_get(r->rest, "ping", NULL, r->err, r->errlen)) == NULL)
		return -1;
	cJSON_Delete(ping);
	if (find_series(r) < 0)
		return -1;
	if (r->n == 0) {
		snprintf(r->err, r->errlen, "pmproxy at %s holds no %s series%s%s%s: load "
			 "archives into its Redis (pmseries --load, or pmproxy's archive "
			 "discovery)", o->url, o->metrics->history,
			 o->query ? " matching --query " : o->nhosts ? " of host " : "",
			 o->query ? o->query : o->nhosts ? o->hosts[0] : "",
			 o->nhosts > 1 ? " or the others" : "");
		return SOURCE_NO_SERIES;
	}
	if (describe(r) < 0)
		return -1;
	for (i = 0; i < r->n; i++)
		if (window(r, &r->v[i]) < 0)
			return -1;
	qsort(r->v, (size_t)r->n, sizeof(*r->v), by_host);
	start_ahead(r);
	for (i = 0; i < r->n && sts == 0; i = j) {
		for (j = i; j < r->n && strcmp(r->v[j].host, r->v[i].host) == 0; j++)
			;
		sts = host_read(r, i, j);
	}
	return sts;
}

int
source_series_read(const struct series_options *o, const struct source_consumer *c,
		   char *err, size_t errlen)
{
	struct run	r = { .o = o, .c = c, .err = err, .errlen = errlen };
	int		sts;

	err[0] = '\0';
	if ((r.rest = series_rest_open(o->url, err, errlen)) == NULL)
		return -1;
	sts = read_all(&r);
	if (sts < 0 && sts != -1 && sts != SOURCE_NO_SERIES && err[0] == '\0')
		snprintf(err, errlen, "%s", strerror(-sts));
	series_prefetch_stop(r.ahead);
	series_rest_close(r.rest);
	free(r.v);
	return sts == SOURCE_NO_SERIES ? sts : sts < 0 ? -1 : 0;
}
