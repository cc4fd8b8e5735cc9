/*
 * s3_http.h - one S3 object request (PUT or GET) signed with SigV4 through
 * libcurl, its outcome sorted into what a retry can fix and what it cannot.
 */
#ifndef S3_HTTP_H
#define S3_HTTP_H

#include <stddef.h>
#include "common/membuf.h"
#include "s3_config.h"

enum s3_outcome {
	S3_OK,		/* 2xx */
	S3_ABSENT,	/* GET of a key that does not exist (404 NoSuchKey) */
	S3_TRANSIENT,	/* connection refused, timeout, 5xx, 429, 408: try again later */
	S3_PERMANENT,	/* 403, 404 NoSuchBucket, bad request: a person must act */
};

struct s3_client {
	const struct s3_config	*cfg;
	void			*curl;		/* CURL *, reused so connections are kept */
	unsigned		tries;		/* attempts per request, >= 1 */
	unsigned		backoff_ms;	/* first pause between attempts; doubles */
};

int s3_client_init(struct s3_client *cl, const struct s3_config *cfg, char *err, size_t errlen);
void s3_client_fini(struct s3_client *cl);

/*
 * PUT body under bucket/key, retrying transient failures with exponential
 * backoff (cl->tries attempts in all).  err names the bucket and key.
 */
enum s3_outcome s3_put_object(struct s3_client *cl, const char *bucket, const char *key,
			      const char *content_type, const void *body, size_t len,
			      char *err, size_t errlen);

/* GET bucket/key into out (reset first), with the same retries. */
enum s3_outcome s3_get_object(struct s3_client *cl, const char *bucket, const char *key,
			      struct membuf *out, char *err, size_t errlen);

/* Lower-case hex SHA-256 of data into hex[65]. */
void s3_sha256_hex(const void *data, size_t len, char hex[65]);

/* Text of <tag>...</tag> in an S3 error document (NULL: none) into out,
 * empty when absent.  request_once reads "Code" and "Message" with it;
 * public for qa/fuzz/client/fuzz_s3_http.c. */
void s3_error_field(const char *doc, const char *tag, char *out, size_t outlen);

/* Sort an HTTP status (0 = no response; curl_code then says why) and the
 * S3 error code from the response body into an outcome. */
enum s3_outcome s3_classify(long http_status, int curl_code, const char *s3_code);

#endif /* S3_HTTP_H */
