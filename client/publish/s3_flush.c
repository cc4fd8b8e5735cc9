/*
 * s3_flush.c - deliver spooled objects.  Each is removed from the spool
 * only after S3 said 2xx; one bad entry never blocks the others.
 *
 * The index (the list and its page, named by the caller's index_merge) is
 * not copied back blindly: a run that started while S3 was down could not
 * read the bucket's list, so what it spooled lists its own profiles only.
 * A spooled list is merged with the bucket's copy, and the page is rebuilt
 * from the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/membuf.h"
#include "s3_flush.h"

#define FAILED_BUCKETS	16

/* Buckets that refused an object for good in this flush. */
struct failed_buckets {
	char	name[FAILED_BUCKETS][64];
	size_t	n;
};

static int
bucket_failed(const struct failed_buckets *f, const char *bucket)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (strcmp(f->name[i], bucket) == 0)
			return 1;
	return 0;
}

const char *
s3_endpoint_id(const struct s3_config *c)
{
	return c->endpoint ? c->endpoint : "aws";
}

/* Whether key's last component is file (the index's list at any prefix). */
static int
key_is(const char *key, const char *file)
{
	const char	*slash = strrchr(key, '/');

	return strcmp(slash ? slash + 1 : key, file) == 0;
}

/* key with its last component replaced by file (malloc'd). */
static char *
sibling_key(const char *key, const char *file)
{
	const char	*slash = strrchr(key, '/');
	size_t		dir = slash ? (size_t)(slash - key) + 1 : 0;
	char		*out = malloc(dir + strlen(file) + 1);

	if (out != NULL) {
		memcpy(out, key, dir);
		strcpy(out + dir, file);
	}
	return out;
}

/*
 * Deliver a spooled list or page of the index: read the bucket's list,
 * merge a spooled list into it, and write the list (when spooled) and the
 * page derived from the merged list.  Only a spooled page with no list in
 * the bucket goes as it is.
 */
static enum s3_outcome
deliver_index(struct s3_client *cl, const struct index_merge *im,
	      const struct s3_spool_entry *e, char *err, size_t errlen)
{
	int		spooled_list = key_is(e->key, im->list);
	char		*list_key = sibling_key(e->key, im->list);
	char		*page_key = sibling_key(e->key, im->page);
	char		*list = NULL;
	struct membuf	current, page;
	enum s3_outcome	out;

	membuf_init(&current);
	membuf_init(&page);
	if (list_key == NULL || page_key == NULL) {
		snprintf(err, errlen, "out of memory");
		out = S3_PERMANENT;
		goto done;
	}
	out = s3_get_object(cl, e->bucket, list_key, &current, err, errlen);
	if (out != S3_OK && out != S3_ABSENT)
		goto done;
	if (out == S3_ABSENT && !spooled_list) {
		out = s3_put_object(cl, e->bucket, e->key, e->content_type, e->body, e->len,
				    err, errlen);
		goto done;
	}
	if (im->merge(spooled_list ? e->body : NULL, current.data, &list, &page) < 0) {
		snprintf(err, errlen, "out of memory merging s3://%s/%s", e->bucket, list_key);
		out = S3_TRANSIENT;
		goto done;
	}
	out = S3_OK;
	if (spooled_list)
		out = s3_put_object(cl, e->bucket, list_key, im->list_type, list,
				    strlen(list), err, errlen);
	if (out == S3_OK)
		out = s3_put_object(cl, e->bucket, page_key, im->page_type,
				    page.data, page.len, err, errlen);
done:
	free(list);
	membuf_free(&page);
	membuf_free(&current);
	free(list_key);
	free(page_key);
	return out;
}

/* Deliver entry NAME, or say why it stays. */
static void
deliver_entry(struct s3_client *cl, struct s3_spool *sp, const struct index_merge *im,
	      const char *name, struct failed_buckets *f, struct s3_flush_result *r)
{
	struct s3_spool_entry	e;
	enum s3_outcome		out;
	char			err[1024];
	int			rc;

	if ((rc = s3_spool_read(sp, name, &e, err, sizeof(err))) == -1)
		return;		/* replaced by a newer version meanwhile */
	if (rc < 0) {
		fprintf(stderr, "pmflame: %s\n", err);
		return;
	}
	if (strcmp(e.endpoint, s3_endpoint_id(cl->cfg)) != 0 || bucket_failed(f, e.bucket)) {
		r->elsewhere += strcmp(e.endpoint, s3_endpoint_id(cl->cfg)) != 0;
		r->remaining++;
		s3_spool_entry_free(&e);
		return;
	}
	if (im != NULL && (key_is(e.key, im->list) || key_is(e.key, im->page)))
		out = deliver_index(cl, im, &e, err, sizeof(err));
	else
		out = s3_put_object(cl, e.bucket, e.key, e.content_type, e.body, e.len,
				    err, sizeof(err));
	if (out == S3_OK) {
		s3_spool_remove(sp, name);
		r->delivered++;
	} else {
		r->remaining++;
		snprintf(r->last_error, sizeof(r->last_error), "%s", err);
		if (out == S3_TRANSIENT)
			r->transient = 1;
		else if (f->n < FAILED_BUCKETS)
			snprintf(f->name[f->n++], sizeof(f->name[0]), "%s", e.bucket);
		fprintf(stderr, "pmflame: spooled object not delivered: %s\n", err);
	}
	s3_spool_entry_free(&e);
}

void
s3_flush(struct s3_client *cl, struct s3_spool *sp, const struct index_merge *im,
	 struct s3_flush_result *r)
{
	struct failed_buckets	f = { .n = 0 };
	char			**names;
	size_t			n, i;

	memset(r, 0, sizeof(*r));
	if (!s3_spool_flush_begin(sp))
		return;		/* another pmflame is delivering them */
	if (s3_spool_list(sp, &names, &n, r->last_error, sizeof(r->last_error)) < 0) {
		s3_spool_flush_end(sp);
		return;
	}
	for (i = 0; i < n; i++) {
		if (r->transient)
			r->remaining++;		/* S3 is down: the rest waits */
		else
			deliver_entry(cl, sp, im, names[i], &f, r);
	}
	s3_spool_names_free(names, n);
	s3_spool_flush_end(sp);
}
