/*
 * sink_s3.c - the -o s3://bucket/prefix/ sink: objects go to S3, and what
 * cannot go now waits in the spool (s3_spool.h) until it can.
 *
 * Order matters for an object rewritten every period (latest.svg,
 * index.json): an old version delivered after a new one would win.  So the
 * spool is flushed, oldest first, before any direct upload, and a key that
 * still has a spooled version is spooled again rather than uploaded past
 * it.  After a transient failure the endpoint is left alone for a while
 * (doubling, up to a minute): objects go straight to the spool instead of
 * each waiting through its own retries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "s3_config.h"
#include "s3_flush.h"
#include "s3_http.h"
#include "s3_key.h"
#include "s3_spool.h"
#include "sink.h"
#include "common/util.h"
#include "lib/clock.h"

#define HOLD_FIRST_SECS	2
#define HOLD_MAX_SECS	60
#define REFLUSH_SECS	600	/* refused objects are tried again this often in a long run */
#define READBACK_KEYS	16		/* index.json and the like: a few keys */
#define READBACK_MAX	(16 << 20)	/* bytes kept per key */

/*
 * The newest version this process knows of each key it has read back: an
 * index merged during an outage must start from it, not from nothing.
 */
struct readback {
	char	*key;
	char	*body;		/* NULL: not known */
	size_t	len;
};

struct s3_sink {
	struct sink		base;
	struct s3_target	target;
	struct s3_config	cfg;
	struct s3_client	client;
	struct s3_spool		spool;
	double			offline_until;	/* monotonic seconds */
	int			need_flush;	/* we spooled because S3 was unreachable */
	double			last_flush;	/* monotonic seconds */
	unsigned		hold;		/* seconds of the next offline period */
	unsigned long		spooled;	/* objects this run had to spool */
	struct readback		readback[READBACK_KEYS];
	const struct index_merge *index;	/* merged on delivery; may be NULL */
};


static void
went_offline(struct s3_sink *s)
{
	s->hold = s->hold ? s->hold * 2 : HOLD_FIRST_SECS;
	if (s->hold > HOLD_MAX_SECS)
		s->hold = HOLD_MAX_SECS;
	s->offline_until = clock_mono_s() + s->hold;
}

static int
is_offline(const struct s3_sink *s)
{
	return s->offline_until > clock_mono_s();
}

static struct readback *
readback_find(struct s3_sink *s, const char *key, int add)
{
	size_t i;

	for (i = 0; i < READBACK_KEYS && s->readback[i].key; i++)
		if (strcmp(s->readback[i].key, key) == 0)
			return &s->readback[i];
	if (!add || i == READBACK_KEYS || (s->readback[i].key = strdup(key)) == NULL)
		return NULL;
	return &s->readback[i];
}

/* Remember body as the newest version of key, if key is one we read back. */
static void
readback_note(struct s3_sink *s, const char *key, const void *body, size_t len)
{
	struct readback	*r = readback_find(s, key, 0);
	char		*copy = NULL;

	if (!r)
		return;
	if (len <= READBACK_MAX && (copy = malloc(len + 1)) != NULL) {
		memcpy(copy, body, len);
		copy[len] = '\0';
	}
	free(r->body);
	r->body = copy;		/* NULL (unknown) when too big to keep */
	r->len = copy ? len : 0;
}

/*
 * Flush at open, after an outage, and every REFLUSH_SECS; note a new
 * outage.  Quiet when the spool is empty.  Objects refused for good (403,
 * no bucket) are not retried at every put: a person must act first, and
 * each try would only repeat the same message.
 */
static void
flush_pending(struct s3_sink *s)
{
	unsigned long long	bytes;
	unsigned long		files;
	struct s3_flush_result	r;

	s->need_flush = 0;
	s->last_flush = clock_mono_s();
	s3_spool_usage(&s->spool, &bytes, &files);
	if (files == 0)
		return;
	s3_flush(&s->client, &s->spool, s->index, &r);
	if (r.delivered)
		fprintf(stderr, "pmflame: delivered %zu spooled object%s from %s\n",
			r.delivered, r.delivered == 1 ? "" : "s", s->spool.dir);
	if (r.transient) {
		went_offline(s);
		s->need_flush = 1;
	} else if (r.delivered)
		s->hold = 0;	/* it answers again */
}

/* Keep an object that could not be delivered; err gets why, if it fails. */
static int
spool_object(struct s3_sink *s, const char *key, const char *content_type,
	     const void *data, size_t len, const char *why, char *err, size_t errlen)
{
	char serr[1024];

	if (s3_spool_add(&s->spool, s3_endpoint_id(&s->cfg), s->target.bucket, key, content_type,
			 data, len, serr, sizeof(serr)) < 0) {
		/* the caller reports err: this is data loss, it must not go quietly */
		if (why)
			seterr(err, errlen, "%s; %s", why, serr);
		else
			seterr(err, errlen, "%s", serr);
		return -1;
	}
	s->spooled++;
	return 0;
}

static int
s3_put(struct sink *base, const char *relpath, const char *content_type,
       const void *data, size_t len, char *err, size_t errlen)
{
	struct s3_sink	*s = (struct s3_sink *)base;
	char		why[1024];
	char		*key;
	enum s3_outcome	out;
	int		rc = -1;

	if ((key = s3_key_join(&s->target, relpath, err, errlen)) == NULL)
		return -1;
	readback_note(s, key, data, len);
	if ((s->need_flush || clock_mono_s() - s->last_flush > REFLUSH_SECS) && !is_offline(s))
		flush_pending(s);
	if (is_offline(s)) {
		s->need_flush = 1;
		if ((rc = spool_object(s, key, content_type, data, len, NULL, err, errlen)) == 0)
			fprintf(stderr, "pmflame: s3://%s/%s spooled in %s: S3 unreachable, "
				"next try in %.0f s\n", s->target.bucket, key, s->spool.dir,
				s->offline_until - clock_mono_s());
		goto out;
	}
	if (s3_spool_find(&s->spool, s3_endpoint_id(&s->cfg), s->target.bucket, key, NULL)) {
		/* an older version waits (undeliverable, or another pmflame is
		 * delivering it): uploading past it would let it win later */
		if ((rc = spool_object(s, key, content_type, data, len, NULL, err, errlen)) == 0)
			fprintf(stderr, "pmflame: s3://%s/%s spooled in %s behind an older, "
				"undelivered version\n", s->target.bucket, key, s->spool.dir);
		goto out;
	}
	out = s3_put_object(&s->client, s->target.bucket, key, content_type, data, len,
			    why, sizeof(why));
	if (out == S3_OK) {
		s->hold = 0;
		rc = 0;
	} else if (out == S3_TRANSIENT) {
		went_offline(s);
		s->need_flush = 1;
		if ((rc = spool_object(s, key, content_type, data, len, why, err, errlen)) == 0)
			fprintf(stderr, "pmflame: %s; spooled in %s until S3 can be reached\n",
				why, s->spool.dir);
	} else if (spool_object(s, key, content_type, data, len, why, err, errlen) == 0) {
		seterr(err, errlen, "%s (spooled in %s: fix the cause, then run pmflame --flush)",
		       why, s->spool.dir);
	}
out:
	free(key);
	return rc;
}

/*
 * Read back an object: a spooled version is newer than the bucket's.  When
 * S3 cannot be reached, the newest version this process wrote or read
 * stands in.  -1 when absent, -2 when it cannot be known now (the caller
 * must not take that for absent and overwrite what it could not see).
 */
static int
s3_get(struct sink *base, const char *relpath, char **data, size_t *len)
{
	struct s3_sink		*s = (struct s3_sink *)base;
	struct s3_spool_entry	e;
	struct readback		*r;
	struct membuf		b;
	char			err[1024], *key;
	enum s3_outcome		out = S3_TRANSIENT;

	if ((key = s3_key_join(&s->target, relpath, err, sizeof(err))) == NULL)
		return -1;
	r = readback_find(s, key, 1);
	if (s3_spool_find(&s->spool, s3_endpoint_id(&s->cfg), s->target.bucket, key, &e)) {
		free(key);
		*data = e.body;
		*len = e.len;
		e.body = NULL;
		s3_spool_entry_free(&e);
		return 0;
	}
	membuf_init(&b);
	if (is_offline(s))
		snprintf(err, sizeof(err), "s3://%s/%s: S3 unreachable", s->target.bucket, key);
	else if ((out = s3_get_object(&s->client, s->target.bucket, key, &b,
				      err, sizeof(err))) == S3_TRANSIENT) {
		went_offline(s);
		s->need_flush = 1;
	}
	free(key);
	if (out == S3_OK && !b.failed) {
		if (!b.data)
			membuf_append(&b, "", 0);
		if (r && b.data)
			readback_note(s, r->key, b.data, b.len);
		*data = b.data;
		*len = b.len;
		return b.data ? 0 : -2;
	}
	membuf_free(&b);
	if (out == S3_ABSENT)
		return -1;
	if (r && r->body && (*data = malloc(r->len + 1)) != NULL) {
		memcpy(*data, r->body, r->len + 1);
		*len = r->len;
		return 0;
	}
	fprintf(stderr, "pmflame: cannot read back %s\n", err);
	return -2;
}

static void
s3_sink_free(struct s3_sink *s)
{
	size_t i;

	for (i = 0; i < READBACK_KEYS; i++) {
		free(s->readback[i].key);
		free(s->readback[i].body);
	}
	s3_client_fini(&s->client);
	s3_spool_close(&s->spool);
	s3_config_free(&s->cfg);
	s3_target_free(&s->target);
	free(s->base.target);
	free(s);
}

/* A last try to leave nothing behind; quick, since we are exiting.
 * When this run spooled, what the spool still holds then was not
 * delivered: the caller says so.  Entries only older runs left (refused
 * for good, waiting for a person) do not make this run's status. */
static unsigned long
s3_close(struct sink *base)
{
	struct s3_sink		*s = (struct s3_sink *)base;
	unsigned long long	bytes;
	unsigned long		files;

	s->client.tries = 1;
	if (s->need_flush)
		flush_pending(s);
	s3_spool_usage(&s->spool, &bytes, &files);
	if (s->spooled == 0)
		files = 0;
	s3_sink_free(s);
	return files;
}

static const struct sink_ops s3_ops = { .put = s3_put, .get = s3_get, .close = s3_close };

/* Config, spool and client: what both the sink and --flush need. */
static int
s3_parts_open(struct s3_sink *s, char *err, size_t errlen)
{
	s->spool.lock_fd = s->spool.flush_fd = -1;
	if (s3_config_load(&s->cfg, err, errlen) < 0)
		return -1;
	if (s3_spool_open(&s->spool, err, errlen) < 0)
		return -1;
	return s3_client_init(&s->client, &s->cfg, err, errlen);
}

struct sink *
sink_s3_open(const char *url, const struct index_merge *im, char *err, size_t errlen)
{
	struct s3_sink *s;

	if ((s = calloc(1, sizeof(*s))) == NULL || (s->base.target = strdup(url)) == NULL) {
		free(s);
		seterr(err, errlen, "out of memory");
		return NULL;
	}
	s->base.ops = &s3_ops;
	s->index = im;
	if (s3_target_parse(url, &s->target, err, errlen) < 0 ||
	    s3_parts_open(s, err, errlen) < 0) {
		s3_sink_free(s);
		return NULL;
	}
	flush_pending(s);	/* what earlier runs left goes first */
	return &s->base;
}

int
sink_s3_flush_spool(const struct index_merge *im, char *err, size_t errlen)
{
	struct s3_sink		*s;
	struct s3_flush_result	r;
	unsigned long long	bytes;
	unsigned long		files;
	int			rc;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		seterr(err, errlen, "out of memory");
		return -1;
	}
	s->index = im;
	/* nothing waits: done, whether or not S3 is configured here */
	s->spool.lock_fd = s->spool.flush_fd = -1;
	if (s3_spool_open(&s->spool, err, errlen) < 0) {
		s3_sink_free(s);
		return -1;
	}
	s3_spool_usage(&s->spool, &bytes, &files);
	if (files == 0) {
		fprintf(stderr, "pmflame: nothing spooled in %s\n", s->spool.dir);
		err[0] = '\0';
		s3_sink_free(s);
		return 0;
	}
	s3_spool_close(&s->spool);
	if (s3_parts_open(s, err, errlen) < 0) {
		s3_sink_free(s);
		return -1;
	}
	s3_flush(&s->client, &s->spool, s->index, &r);
	s3_spool_usage(&s->spool, &bytes, &files);
	fprintf(stderr, "pmflame: delivered %zu spooled object%s; %lu left in %s\n",
		r.delivered, r.delivered == 1 ? "" : "s", files, s->spool.dir);
	if (r.elsewhere)
		fprintf(stderr, "pmflame: %zu of them for other S3 endpoints than %s: run --flush "
			"with their AWS_ENDPOINT_URL\n", r.elsewhere, s3_endpoint_id(&s->cfg));
	if (files)
		seterr(err, errlen, "%lu object%s still spooled in %s%s%s", files,
		       files == 1 ? "" : "s", s->spool.dir, r.last_error[0] ? "; last error: " : "",
		       r.last_error);
	else
		err[0] = '\0';
	rc = files > (unsigned long)0x7fffffff ? 0x7fffffff : (int)files;
	s3_sink_free(s);
	return rc;
}
