/*
 * s3_key.h - names in S3: the user's s3://bucket/prefix/ target, object keys
 * under it, and the request URL for an object.
 */
#ifndef S3_KEY_H
#define S3_KEY_H

#include <stddef.h>

struct s3_config;

#define S3_KEY_MAX	1024	/* S3's limit on a key, in bytes */

struct s3_target {
	char	*bucket;
	char	*prefix;	/* "" or "a/b/" (no leading '/', one trailing '/') */
};

/*
 * Parse "s3://bucket[/prefix[/]]".  The bucket must follow S3's naming rules;
 * the prefix may not hold empty, "." or ".." components or control
 * characters.  -1 with a message in err.
 */
int s3_target_parse(const char *url, struct s3_target *t, char *err, size_t errlen);
void s3_target_free(struct s3_target *t);

/* Whether bucket and key could have been made by this code (a spooled
 * entry is checked again before it is sent anywhere). */
int s3_object_name_ok(const char *bucket, const char *key);

/*
 * Key for relpath under the prefix: relpath must be '/'-separated
 * components, none empty, ".", ".." or holding control characters.
 * Returns a malloc'd key, or NULL with a message in err.
 */
char *s3_key_join(const struct s3_target *t, const char *relpath, char *err, size_t errlen);

/*
 * URL of an object: path-style "ENDPOINT/bucket/key" when an endpoint is
 * configured, else "https://bucket.s3.REGION.amazonaws.com/key" (path-style
 * on AWS too when the bucket name has a dot, which TLS wildcards refuse).
 * Every key byte but unreserved ones and '/' is percent-encoded, which is
 * also S3's canonical URI for SigV4.  Returns malloc'd, NULL on no memory.
 */
char *s3_object_url(const struct s3_config *c, const char *bucket, const char *key);

#endif /* S3_KEY_H */
