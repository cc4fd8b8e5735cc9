/*
 * series_rest.h - GET requests to pmproxy's /series REST API, answers
 * parsed as JSON (source_series.c).
 */
#ifndef SERIES_REST_H
#define SERIES_REST_H

#include <stddef.h>
#include <cjson/cJSON.h>

struct series_rest;

/* url: "http://HOST:PORT" (a trailing '/' is dropped).  NULL with err. */
struct series_rest *series_rest_open(const char *url, char *err, size_t errlen);
void series_rest_close(struct series_rest *s);

/*
 * GET URL/series/WHAT?QUERY (query's values escaped by the caller with
 * series_rest_escape).  The parsed answer, or NULL with err: pmproxy not
 * reached, an HTTP error, not JSON, or pmproxy's own {"success":false,
 * "message":...}.
 */
cJSON *series_rest_get(struct series_rest *s, const char *what, const char *query,
		       char *err, size_t errlen);

/* text escaped for a query string; free(); NULL when out of memory */
char *series_rest_escape(struct series_rest *s, const char *text);

/*
 * A string value as pmproxy gives it: Redis holds the JSON text of the
 * string (quoted, control characters as \uXXXX), and /series/values hands
 * that text over as is.  The string itself (free()), or NULL if v is not
 * such a literal.
 */
char *series_value_string(const char *v);

#endif /* SERIES_REST_H */
