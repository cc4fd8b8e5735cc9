/*
 * s3_key.c - S3 targets, keys and object URLs.  Keys come from process and
 * host names, which anyone can choose: every component is checked here so
 * that no name can climb out of the prefix or make an ambiguous URL.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/membuf.h"
#include "s3_config.h"
#include "s3_key.h"
#include "common/util.h"


/* S3 bucket naming rules (the strict, current ones). */
static bool
bucket_name_ok(const char *b, size_t len)
{
	size_t	i;
	int	dots = 0;

	if (len < 3 || len > 63)
		return false;
	for (i = 0; i < len; i++) {
		char c = b[i];

		if (!(islower((unsigned char)c) || isdigit((unsigned char)c) || c == '.' || c == '-'))
			return false;
		if (c == '.' && (i == 0 || b[i - 1] == '.' || b[i - 1] == '-' || b[i + 1] == '-'))
			return false;
		dots += c == '.';
	}
	if (!isalnum((unsigned char)b[0]) || !isalnum((unsigned char)b[len - 1]))
		return false;
	/* not an IP address */
	return !(dots == 3 && strspn(b, "0123456789.") == len);
}

/*
 * Check the '/'-separated components of [s, s+len): none empty, "." or
 * "..", no control bytes.  Returns NULL when fine, else what is wrong.
 */
static const char *
path_problem(const char *s, size_t len)
{
	size_t	i, start = 0;

	if (len == 0)
		return "is empty";
	for (i = 0; i <= len; i++) {
		if (i < len && ((unsigned char)s[i] < 0x20 || s[i] == 0x7f))
			return "holds a control character";
		if (i < len && s[i] != '/')
			continue;
		if (i == start)
			return "has an empty component (a leading, trailing or double '/')";
		if ((i - start == 1 && s[start] == '.') ||
		    (i - start == 2 && s[start] == '.' && s[start + 1] == '.'))
			return "has a \".\" or \"..\" component";
		start = i + 1;
	}
	return NULL;
}

int
s3_target_parse(const char *url, struct s3_target *t, char *err, size_t errlen)
{
	const char	*b, *slash, *p;
	size_t		blen, plen;
	const char	*why;

	memset(t, 0, sizeof(*t));
	if (strncmp(url, "s3://", 5) != 0) {
		seterr(err, errlen, "\"%s\" is not an s3://bucket/prefix URL", url);
		return -1;
	}
	b = url + 5;
	slash = strchr(b, '/');
	blen = slash ? (size_t)(slash - b) : strlen(b);
	if (!bucket_name_ok(b, blen)) {
		seterr(err, errlen, "\"%.*s\" in %s is not a valid S3 bucket name "
		       "(3-63 characters: a-z, 0-9, '.', '-')", (int)blen, b, url);
		return -1;
	}
	p = slash ? slash + 1 : "";
	plen = strlen(p);
	if (plen && p[plen - 1] == '/')
		plen--;		/* one trailing '/' is the usual way to write a prefix */
	if (plen && (why = path_problem(p, plen)) != NULL) {
		seterr(err, errlen, "prefix \"%s\" in %s %s", p, url, why);
		return -1;
	}
	if (plen + 1 > S3_KEY_MAX / 2) {
		seterr(err, errlen, "prefix in %s is too long (%zu bytes)", url, plen);
		return -1;
	}
	t->bucket = strndup(b, blen);
	if (asprintf(&t->prefix, "%.*s%s", (int)plen, p, plen ? "/" : "") < 0)
		t->prefix = NULL;
	if (!t->bucket || !t->prefix) {
		s3_target_free(t);
		seterr(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void
s3_target_free(struct s3_target *t)
{
	free(t->bucket);
	free(t->prefix);
	t->bucket = t->prefix = NULL;
}

char *
s3_key_join(const struct s3_target *t, const char *relpath, char *err, size_t errlen)
{
	const char	*why;
	char		*key;

	if ((why = path_problem(relpath, strlen(relpath))) != NULL) {
		seterr(err, errlen, "object name \"%s\" %s", relpath, why);
		return NULL;
	}
	if (strlen(t->prefix) + strlen(relpath) > S3_KEY_MAX) {
		seterr(err, errlen, "object name \"%.60s...\" makes a key longer than S3's %d bytes",
		       relpath, S3_KEY_MAX);
		return NULL;
	}
	if (asprintf(&key, "%s%s", t->prefix, relpath) < 0) {
		seterr(err, errlen, "out of memory");
		return NULL;
	}
	return key;
}

int
s3_object_name_ok(const char *bucket, const char *key)
{
	size_t n = strlen(key);

	return bucket_name_ok(bucket, strlen(bucket)) && n <= S3_KEY_MAX &&
	       path_problem(key, n) == NULL;
}

/* RFC 3986 unreserved characters pass; '/' separates; all else is %XX. */
static void
append_encoded_key(struct membuf *b, const char *key)
{
	const unsigned char *k;

	for (k = (const unsigned char *)key; *k; k++) {
		if (isalnum(*k) || *k == '-' || *k == '_' || *k == '.' || *k == '~' || *k == '/')
			membuf_append(b, k, 1);
		else
			membuf_printf(b, "%%%02X", *k);
	}
}

char *
s3_object_url(const struct s3_config *c, const char *bucket, const char *key)
{
	struct membuf	b;

	membuf_init(&b);
	if (c->endpoint)
		membuf_printf(&b, "%s/%s/", c->endpoint, bucket);
	else if (strchr(bucket, '.'))
		membuf_printf(&b, "https://s3.%s.amazonaws.com/%s/", c->region, bucket);
	else
		membuf_printf(&b, "https://%s.s3.%s.amazonaws.com/", bucket, c->region);
	append_encoded_key(&b, key);
	if (b.failed) {
		membuf_free(&b);
		return NULL;
	}
	return b.data;
}
