/*
 * sink.c - choose a sink from the -o target and forward calls to it.
 * "s3://..." goes to sink_s3.c, anything else is a local directory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/hash.h"
#include "common/membuf.h"
#include "sink.h"

struct sink *
sink_open(const char *target, const struct index_merge *im, char *err, size_t errlen)
{
	if (target == NULL || target[0] == '\0') {
		snprintf(err, errlen, "empty output target");
		return NULL;
	}
	if (strncmp(target, "s3://", 5) == 0)
		return sink_s3_open(target, im, err, errlen);
	return sink_dir_open(target, err, errlen);
}

int
sink_put(struct sink *s, const char *relpath, const char *content_type,
	 const void *data, size_t len, char *err, size_t errlen)
{
	return s->ops->put(s, relpath, content_type, data, len, err, errlen);
}

int
sink_put_copy(struct sink *s, const char *from, const char *relpath,
	      const char *content_type, const void *data, size_t len,
	      char *err, size_t errlen)
{
	if (s->ops->copy != NULL && s->ops->copy(s, from, relpath) == 0)
		return 0;
	return sink_put(s, relpath, content_type, data, len, err, errlen);
}

struct sink_stage {
	struct sink	*sink;
	char		*relpath, *content_type;
	void		*impl;		/* the sink's own stage; NULL: held in buf */
	struct membuf	buf;
};

static void
stage_free(struct sink_stage *st)
{
	membuf_free(&st->buf);
	free(st->relpath);
	free(st->content_type);
	free(st);
}

struct sink_stage *
sink_stage_open(struct sink *s, const char *relpath, const char *content_type,
		char *err, size_t errlen)
{
	struct sink_stage	*st = calloc(1, sizeof(*st));

	if (st == NULL || (st->relpath = strdup(relpath)) == NULL ||
	    (st->content_type = strdup(content_type)) == NULL) {
		snprintf(err, errlen, "out of memory");
		if (st != NULL)
			stage_free(st);
		return NULL;
	}
	st->sink = s;
	membuf_init(&st->buf);
	if (s->ops->stage_open != NULL &&
	    s->ops->stage_open(s, relpath, &st->impl, err, errlen) < 0) {
		stage_free(st);
		return NULL;
	}
	return st;
}

int
sink_stage_write(void *stage, const void *data, size_t len)
{
	struct sink_stage	*st = stage;

	if (st->impl != NULL)
		return st->sink->ops->stage_write(st->impl, data, len);
	membuf_append(&st->buf, data, len);
	if (st->buf.failed) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int
sink_stage_end(struct sink_stage *st, char *err, size_t errlen)
{
	if (st->impl != NULL)
		return st->sink->ops->stage_end(st->impl, err, errlen);
	if (st->buf.failed) {
		snprintf(err, errlen, "cannot write %s/%s: out of memory", st->sink->target,
			 st->relpath);
		return -1;
	}
	return 0;
}

int
sink_stage_commit(struct sink_stage *st, const char *copy, char *err, size_t errlen)
{
	struct sink	*s = st->sink;
	int		sts;

	if (st->impl != NULL) {
		sts = s->ops->stage_commit(st->impl, err, errlen);
		/* a staging sink copies without the bytes (sink_dir.c: a link,
		 * or a copy of the file) */
		if (sts == 0 && copy != NULL && s->ops->copy(s, st->relpath, copy) < 0) {
			snprintf(err, errlen, "cannot write %s/%s: %s", s->target, copy,
				 strerror(errno));
			sts = -1;
		}
	} else {
		sts = sink_put(s, st->relpath, st->content_type, st->buf.data, st->buf.len,
			       err, errlen);
		if (sts == 0 && copy != NULL)
			sts = sink_put_copy(s, st->relpath, copy, st->content_type,
					    st->buf.data, st->buf.len, err, errlen);
	}
	stage_free(st);
	return sts;
}

void
sink_stage_abort(struct sink_stage *st)
{
	if (st == NULL)
		return;
	if (st->impl != NULL)
		st->sink->ops->stage_abort(st->impl);
	stage_free(st);
}

int
sink_get(struct sink *s, const char *relpath, char **data, size_t *len)
{
	if (s->ops->get == NULL)
		return -1;
	return s->ops->get(s, relpath, data, len);
}

void
sink_lock(struct sink *s)
{
	if (s->ops->lock != NULL)
		s->ops->lock(s);
}

void
sink_unlock(struct sink *s)
{
	if (s->ops->unlock != NULL)
		s->ops->unlock(s);
}

unsigned long
sink_close(struct sink *s)
{
	return s != NULL ? s->ops->close(s) : 0;
}

static int
safe_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' ||
	       c == '+' || c == '@' || c == ',' || c == '=';
}

/* Checked where a name comes back from outside (index.json): no '.'
 * first, so no "." or ".." and no hidden file, and at most NAME_MAX. */
int
sink_name_is_safe(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || n > 255 || s[0] == '.')
		return 0;
	for (i = 0; i < n; i++)
		if (!safe_char((unsigned char)s[i]))
			return 0;
	return 1;
}

#define SAFE_NAME_MAX	100	/* well under NAME_MAX and S3 key limits */

/*
 * Every byte outside a small portable set becomes '_', so the result is
 * one path component that needs no quoting in a URL, a shell or an S3 key.
 * A leading '.' is replaced too (no ".", "..", or hidden files).  Names too
 * long are cut and get a hash of the whole input, so they stay distinct.
 */
void
sink_safe_name(const char *in, char *out, size_t outlen)
{
	size_t	max = outlen - 1, i, n = strlen(in);
	char	tail[16];

	if (outlen == 0)
		return;
	if (max > SAFE_NAME_MAX)
		max = SAFE_NAME_MAX;
	if (n > max) {
		/* FNV-1a keeps cut names distinct; not a security measure */
		snprintf(tail, sizeof(tail), "~%08lx", (unsigned long)hash_stable32(in));
		if (max <= strlen(tail)) {
			/* no room for a prefix: the hash alone names it */
			snprintf(out, outlen, "%s", tail + 1);
			return;
		}
		n = max - strlen(tail);
	} else
		tail[0] = '\0';
	for (i = 0; i < n; i++)
		out[i] = safe_char((unsigned char)in[i]) ? in[i] : '_';
	if (n == 0)
		out[n++] = '_';
	else if (out[0] == '.')
		out[0] = '_';
	out[n] = '\0';
	strncat(out, tail, outlen - n - 1);
}
