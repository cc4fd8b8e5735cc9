/*
 * index_row.c - the rules a row of index.json must keep to be merged:
 * those of manifest_text's rows (site.c).  Strings must be strings; a path
 * is '/'-separated sink_safe_name components, as profile_stem builds it,
 * and a format is one component; numbers are in the range of the field
 * they came from, integers where the field is one, and times are within
 * the calendar utc_strftime prints (years 1970-9999), a row's start not
 * after its end.  host, profile and path are required; an absent number
 * is 0 and absent lists are empty, as site.c has always read them.  Keys
 * we do not know are ignored: a newer pmflame may add some.
 */
#include <math.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "index_row.h"
#include "sink.h"

#define TIME_LIMIT	253402300800.0	/* 10000-01-01 UTC */
#define MAX_FORMATS	8		/* site_entry's exts */

static const char *
text_of(const cJSON *o, const char *key)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number of o in [0, limit), whole when asked, 0 when absent; 0 or -1. */
static int
number_of(const cJSON *o, const char *key, double limit, int whole, double *out)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	*out = 0;
	if (v == NULL)
		return 0;
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble < limit) ||
	    (whole && v->valuedouble != floor(v->valuedouble)))
		return -1;
	*out = v->valuedouble;
	return 0;
}

/* s is '/'-separated components that sink_safe_name could have made. */
static int
path_ok(const char *s)
{
	const char	*slash;
	size_t		n;

	do {
		slash = strchr(s, '/');
		n = slash ? (size_t)(slash - s) : strlen(s);
		if (!sink_name_is_safe(s, n))
			return 0;
		s += n + 1;
	} while (slash != NULL);
	return 1;
}

static int
gaps_read(const cJSON *list, struct data_gap *g, size_t *n, const char **why)
{
	const cJSON	*f;

	*n = 0;
	if (list == NULL)
		return 0;
	if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > SITE_MAX_GAPS) {
		*why = "gaps: not a list of at most 8";
		return -1;
	}
	cJSON_ArrayForEach(f, list) {
		struct data_gap	*d = &g[(*n)++];

		d->host = NULL;
		if ((d->why = text_of(f, "why")) == NULL ||
		    number_of(f, "start", TIME_LIMIT, 0, &d->start) < 0 ||
		    number_of(f, "end", TIME_LIMIT, 0, &d->end) < 0) {
			*why = "gaps: a gap without a why, or a time outside years 1970-9999";
			return -1;
		}
	}
	return 0;
}

static int
formats_read(const cJSON *list, struct site_entry *e, const char **why)
{
	const cJSON	*f;

	if (list == NULL)
		return 0;
	if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > MAX_FORMATS) {
		*why = "formats: not a list of at most 8";
		return -1;
	}
	cJSON_ArrayForEach(f, list) {
		if (!cJSON_IsString(f) || !sink_name_is_safe(f->valuestring, strlen(f->valuestring))) {
			*why = "formats: not a file name suffix pmflame writes";
			return -1;
		}
		e->exts[e->nexts++] = f->valuestring;
	}
	return 0;
}

/* pid, start, end, samples */
static int
numbers_read(const cJSON *item, struct site_entry *e, const char **why)
{
	double	pid, samples;

	if (number_of(item, "pid", 4294967296.0, 1, &pid) < 0) {
		*why = "pid: not a whole number below 2^32";
		return -1;
	}
	if (number_of(item, "samples", 18446744073709551616.0, 1, &samples) < 0) {
		*why = "samples: not a whole number below 2^64";
		return -1;
	}
	if (number_of(item, "start", TIME_LIMIT, 0, &e->start) < 0 ||
	    number_of(item, "end", TIME_LIMIT, 0, &e->end) < 0 || e->start > e->end) {
		*why = "start, end: not a time range within years 1970-9999";
		return -1;
	}
	e->pid = (uint32_t)pid;
	e->samples = (uint64_t)samples;
	return 0;
}

int
index_row_read(const cJSON *item, struct site_entry *e, struct data_gap *g, const char **why)
{
	const cJSON	*event = cJSON_GetObjectItemCaseSensitive(item, "event");

	memset(e, 0, sizeof(*e));
	if (!cJSON_IsObject(item)) {
		*why = "not an object";
		return -1;
	}
	if ((e->host = text_of(item, "host")) == NULL ||
	    (e->name = text_of(item, "profile")) == NULL) {
		*why = "host, profile: not text";
		return -1;
	}
	if ((e->stem = text_of(item, "path")) == NULL || !path_ok(e->stem)) {
		*why = "path: not a name pmflame writes";
		return -1;
	}
	if (event != NULL &&
	    (!cJSON_IsString(event) || !sink_name_is_safe(event->valuestring,
							   strlen(event->valuestring)))) {
		*why = "event: not an event name";
		return -1;
	}
	e->event = event != NULL ? event->valuestring : NULL;
	if (numbers_read(item, e, why) < 0 ||
	    formats_read(cJSON_GetObjectItemCaseSensitive(item, "formats"), e, why) < 0 ||
	    gaps_read(cJSON_GetObjectItemCaseSensitive(item, "gaps"), g, &e->ngaps, why) < 0)
		return -1;
	e->gaps = g;
	return 0;
}
