/*
 * series_rest.c - pmproxy's /series REST API over libcurl (series_rest.h).
 *
 * One handle for the run, so that the many /series/values pages of a
 * fleet reuse one connection.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "series_rest.h"
#include "common/membuf.h"

/* A page of values is a few MB; more is not pmproxy's answer to us. */
#define BODY_MAX	(512L * 1024 * 1024)
/* pmproxy answers /series/ping but never the queries while its Redis
 * is down: a request unanswered this long is that. */
#define ANSWER_SECS	30L

struct series_rest {
	CURL		*curl;
	char		base[1024];
	struct membuf	body;
};

static size_t
on_body(char *data, size_t size, size_t n, void *arg)
{
	struct membuf	*b = arg;

	if (b->len + size * n > (size_t)BODY_MAX)
		return 0;
	membuf_append(b, data, size * n);
	return b->failed ? 0 : size * n;
}

struct series_rest *
series_rest_open(const char *url, char *err, size_t errlen)
{
	struct series_rest	*s;
	size_t			n = strlen(url);

	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
		snprintf(err, errlen, "--series %s: give pmproxy's URL, http://HOST:PORT", url);
		return NULL;
	}
	while (n > 0 && url[n - 1] == '/')
		n--;
	if (n >= sizeof(s->base)) {
		snprintf(err, errlen, "--series: URL too long");
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL || (s->curl = curl_easy_init()) == NULL) {
		free(s);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(s->base, url, n);
	membuf_init(&s->body);
	curl_easy_setopt(s->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(s->curl, CURLOPT_WRITEDATA, &s->body);
	curl_easy_setopt(s->curl, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(s->curl, CURLOPT_TIMEOUT, ANSWER_SECS);
	curl_easy_setopt(s->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->curl, CURLOPT_ACCEPT_ENCODING, "");
	return s;
}

void
series_rest_close(struct series_rest *s)
{
	if (s == NULL)
		return;
	curl_easy_cleanup(s->curl);
	membuf_free(&s->body);
	free(s);
}

char *
series_rest_escape(struct series_rest *s, const char *text)
{
	char	*e = curl_easy_escape(s->curl, text, 0), *copy;

	if (e == NULL)
		return NULL;
	copy = strdup(e);
	curl_free(e);
	return copy;
}

/* pmproxy's own failure: {"success":false,"message":"..."} */
static int
refused(const cJSON *j, const char *what, char *err, size_t errlen)
{
	const cJSON	*ok = cJSON_GetObjectItemCaseSensitive(j, "success");
	const cJSON	*msg = cJSON_GetObjectItemCaseSensitive(j, "message");

	if (!cJSON_IsObject(j) || !cJSON_IsFalse(ok))
		return 0;
	snprintf(err, errlen, "pmproxy /series/%s: %s", what,
		 cJSON_IsString(msg) ? msg->valuestring : "failed");
	return -1;
}

cJSON *
series_rest_get(struct series_rest *s, const char *what, const char *query,
		char *err, size_t errlen)
{
	struct membuf	url;
	CURLcode	rc;
	long		status = 0;
	cJSON		*j;

	membuf_init(&url);
	membuf_printf(&url, "%s/series/%s%s%s", s->base, what, query ? "?" : "", query ? query : "");
	membuf_reset(&s->body);
	if (url.failed) {
		membuf_free(&url);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	curl_easy_setopt(s->curl, CURLOPT_URL, url.data);
	rc = curl_easy_perform(s->curl);
	membuf_free(&url);
	curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
	if (rc == CURLE_OPERATION_TIMEDOUT) {
		snprintf(err, errlen, "pmproxy at %s: no answer to /series/%s in %ld s (is its "
			 "Redis server up? pmproxy's log says)", s->base, what, ANSWER_SECS);
		return NULL;
	}
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "pmproxy at %s: %s%s", s->base, curl_easy_strerror(rc),
			 rc == CURLE_COULDNT_CONNECT ? " (is pmproxy running there?)" : "");
		return NULL;
	}
	j = s->body.data ? cJSON_ParseWithLength(s->body.data, s->body.len) : NULL;
	if (j != NULL && refused(j, what, err, errlen) < 0) {
		cJSON_Delete(j);
		return NULL;
	}
	if (status != 200 || j == NULL) {
		snprintf(err, errlen, "pmproxy at %s: /series/%s: %s%ld%s", s->base, what,
			 status != 200 ? "HTTP " : "not JSON (HTTP ", status,
			 status != 200 ? " (does it serve /series? [pmseries] enabled = true)" : ")");
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}

char *
series_value_string(const char *v)
{
	cJSON	*j = cJSON_Parse(v);
	char	*text = NULL;

	if (cJSON_IsString(j))
		text = strdup(j->valuestring);
	cJSON_Delete(j);
	return text;
}
