/*
 * s3_http.c - S3 object PUT and GET over libcurl with SigV4.
 *
 * libcurl signs (CURLOPT_AWS_SIGV4 "aws:amz:REGION:s3") every header we
 * pass, but 7.88 does not add x-amz-content-sha256, which S3 requires: we
 * send it with the body's SHA-256.  The body goes as POSTFIELDS under a PUT
 * method because that is the body 7.88 hashes into the signature; an
 * uploaded (read-callback) body would be signed as empty.
 */
#include <curl/curl.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "s3_http.h"
#include "s3_key.h"
#include "common/util.h"

#define ERROR_BODY_MAX	(64 * 1024)		/* an S3 error document is small */
/* Only index.json is read back (5000 rows, ~1.5 MB): a bucket's bigger
 * object is not ours, and is not taken into memory (issue 17). */
#define GET_BODY_MAX	(16 * 1024 * 1024)


void
s3_sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char	md[EVP_MAX_MD_SIZE];
	unsigned int	mdlen = 0, i;

	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		mdlen = 0;	/* cannot happen with a working libcrypto; S3 then refuses */
	for (i = 0; i < mdlen; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
	hex[2 * mdlen] = '\0';
}

enum s3_outcome
s3_classify(long http_status, int curl_code, const char *s3_code)
{
	if (http_status == 0) {
		switch (curl_code) {
		case CURLE_COULDNT_RESOLVE_PROXY:
		case CURLE_COULDNT_RESOLVE_HOST:
		case CURLE_COULDNT_CONNECT:
		case CURLE_OPERATION_TIMEDOUT:
		case CURLE_SEND_ERROR:
		case CURLE_RECV_ERROR:
		case CURLE_GOT_NOTHING:
		case CURLE_PARTIAL_FILE:
		case CURLE_SSL_CONNECT_ERROR:
		case CURLE_HTTP2:
		case CURLE_HTTP2_STREAM:
			return S3_TRANSIENT;
		default:
			return S3_PERMANENT;	/* bad URL, TLS verification, ... */
		}
	}
	if (http_status >= 200 && http_status < 300)
		return S3_OK;
	if (http_status >= 500 || http_status == 429 || http_status == 408)
		return S3_TRANSIENT;
	/* S3 says "try again" with a 400 for a few conditions */
	if (s3_code && (strcmp(s3_code, "RequestTimeout") == 0 ||
			strcmp(s3_code, "SlowDown") == 0 ||
			strcmp(s3_code, "OperationAborted") == 0))
		return S3_TRANSIENT;
	if (http_status == 404 && (!s3_code || strcmp(s3_code, "NoSuchKey") == 0))
		return S3_ABSENT;
	return S3_PERMANENT;
}

int
s3_client_init(struct s3_client *cl, const struct s3_config *cfg, char *err, size_t errlen)
{
	static int global_done;

	if (!global_done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			seterr(err, errlen, "cannot initialise libcurl");
			return -1;
		}
		global_done = 1;
	}
	cl->cfg = cfg;
	cl->tries = 3;
	cl->backoff_ms = 500;
	if ((cl->curl = curl_easy_init()) == NULL) {
		seterr(err, errlen, "cannot create a libcurl handle");
		return -1;
	}
	return 0;
}

void
s3_client_fini(struct s3_client *cl)
{
	if (cl->curl)
		curl_easy_cleanup(cl->curl);
	cl->curl = NULL;
}

struct response {
	struct membuf	*body;
	size_t		max;
	bool		too_big;	/* the body passed max: not taken */
};

static size_t
on_body(char *data, size_t size, size_t n, void *arg)
{
	struct response *r = arg;

	if (r->body->len + n > r->max) {
		r->too_big = true;
		return 0;	/* makes curl fail with CURLE_WRITE_ERROR */
	}
	membuf_append(r->body, data, n);
	return r->body->failed ? 0 : size * n;
}

void
s3_error_field(const char *doc, const char *tag, char *out, size_t outlen)
{
	char		open[64], close[64];
	const char	*s, *e;

	out[0] = '\0';
	if (!doc)
		return;
	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	if ((s = strstr(doc, open)) == NULL)
		return;
	s += strlen(open);
	if ((e = strstr(s, close)) == NULL)
		return;
	snprintf(out, outlen, "%.*s", (int)(e - s), s);
}

struct request {
	const char	*method;
	const char	*bucket, *key;
	const char	*content_type;
	const void	*body;
	size_t		len;
	struct membuf	*out;
};

/* Append "name: value" to *h; -1 when out of memory. */
static int
add_header(struct curl_slist **h, const char *name, const char *value)
{
	struct curl_slist	*t;
	char			*line;

	if (asprintf(&line, "%s: %s", name, value) < 0)
		return -1;
	t = curl_slist_append(*h, line);
	free(line);
	if (!t)
		return -1;
	*h = t;
	return 0;
}

static struct curl_slist *
request_headers(const struct s3_client *cl, const struct request *rq)
{
	struct curl_slist	*h = NULL;
	char			hex[65];

	s3_sha256_hex(rq->body ? rq->body : "", rq->len, hex);
	if (add_header(&h, "x-amz-content-sha256", hex) < 0 ||
	    (rq->content_type && add_header(&h, "Content-Type", rq->content_type) < 0) ||
	    (cl->cfg->session_token &&
	     add_header(&h, "x-amz-security-token", cl->cfg->session_token) < 0)) {
		curl_slist_free_all(h);
		return NULL;
	}
	return h;
}

static void
set_common_options(CURL *c, const struct s3_client *cl, char *sigv4, char *errbuf)
{
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	/* a stalled transfer is a timeout, however large the object */
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 20L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 300L);
	curl_easy_setopt(c, CURLOPT_AWS_SIGV4, sigv4);
	curl_easy_setopt(c, CURLOPT_USERNAME, cl->cfg->access_key);
	curl_easy_setopt(c, CURLOPT_PASSWORD, cl->cfg->secret_key);
}

/* One attempt.  err says what went wrong, naming bucket and key. */
static enum s3_outcome
request_once(struct s3_client *cl, const struct request *rq, char *err, size_t errlen)
{
	CURL			*c = cl->curl;
	struct curl_slist	*hdrs;
	struct membuf		errdoc;
	struct response		resp;
	char			sigv4[128], errbuf[CURL_ERROR_SIZE] = "";
	char			code[128], msg[512];
	char			*url;
	long			status = 0;
	CURLcode		rc;
	enum s3_outcome		out;

	membuf_init(&errdoc);
	url = s3_object_url(cl->cfg, rq->bucket, rq->key);
	hdrs = request_headers(cl, rq);
	if (!url || !hdrs) {
		free(url);
		curl_slist_free_all(hdrs);
		seterr(err, errlen, "s3://%s/%s: out of memory", rq->bucket, rq->key);
		return S3_PERMANENT;
	}
	if (rq->out)
		membuf_reset(rq->out);
	resp.body = rq->out ? rq->out : &errdoc;
	resp.max = rq->out ? GET_BODY_MAX : ERROR_BODY_MAX;
	resp.too_big = false;
	snprintf(sigv4, sizeof(sigv4), "aws:amz:%s:s3", cl->cfg->region);

	curl_easy_reset(c);
	set_common_options(c, cl, sigv4, errbuf);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &resp);
	if (strcmp(rq->method, "PUT") == 0) {
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->len);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->len ? rq->body : "");
	} else {
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	}
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);

	/* on an HTTP error the body is S3's error document, wherever it went */
	{
		const char *doc = resp.body->data;

		s3_error_field(status >= 300 ? doc : NULL, "Code", code, sizeof(code));
		s3_error_field(status >= 300 ? doc : NULL, "Message", msg, sizeof(msg));
	}
	out = s3_classify(status, rc, code[0] ? code : NULL);
	if (out == S3_OK)
		err[0] = '\0';
	else if (resp.too_big && rq->out)
		seterr(err, errlen, "%s s3://%s/%s: larger than %d MiB: not read", rq->method,
		       rq->bucket, rq->key, GET_BODY_MAX >> 20);
	else if (status == 0)
		seterr(err, errlen, "%s s3://%s/%s: %s", rq->method, rq->bucket, rq->key,
		       errbuf[0] ? errbuf : curl_easy_strerror(rc));
	else
		seterr(err, errlen, "%s s3://%s/%s: HTTP %ld%s%s%s%s", rq->method, rq->bucket,
		       rq->key, status, code[0] ? " " : "", code, msg[0] ? ": " : "", msg);
	if (out != S3_OK && rq->out)
		membuf_reset(rq->out);
	membuf_free(&errdoc);
	curl_slist_free_all(hdrs);
	free(url);
	return out;
}

static void
sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static enum s3_outcome
request_retried(struct s3_client *cl, const struct request *rq, char *err, size_t errlen)
{
	enum s3_outcome	out = S3_TRANSIENT;
	unsigned	i, pause = cl->backoff_ms;

	for (i = 0; i < (cl->tries ? cl->tries : 1); i++) {
		if (i > 0) {
			sleep_ms(pause);
			pause *= 2;
		}
		if ((out = request_once(cl, rq, err, errlen)) != S3_TRANSIENT)
			return out;
	}
	if (i > 1) {
		size_t n = strlen(err);

		snprintf(err + n, errlen > n ? errlen - n : 0, " (after %u tries)", i);
	}
	return out;
}

enum s3_outcome
s3_put_object(struct s3_client *cl, const char *bucket, const char *key,
	      const char *content_type, const void *body, size_t len,
	      char *err, size_t errlen)
{
	struct request	rq = { "PUT", bucket, key, content_type, body, len, NULL };
	enum s3_outcome	out = request_retried(cl, &rq, err, errlen);

	return out == S3_ABSENT ? S3_PERMANENT : out;	/* a 404 on PUT: no bucket */
}

enum s3_outcome
s3_get_object(struct s3_client *cl, const char *bucket, const char *key,
	      struct membuf *out, char *err, size_t errlen)
{
	struct request rq = { "GET", bucket, key, NULL, NULL, 0, out };

	return request_retried(cl, &rq, err, errlen);
}
