/*
 * s3_flush.c - deliver spooled objects.  Each is removed from the spool
 * only after S3 said 2xx; one bad entry never blocks the others.
 */
#include <stdio.h>
#include <string.h>
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

/* Deliver entry NAME, or say why it stays. */
static void
deliver_entry(struct s3_client *cl, struct s3_spool *sp, const char *name,
	      struct failed_buckets *f, struct s3_flush_result *r)
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
	out = s3_put_object(cl, e.bucket, e.key, e.content_type, e.body, e.len, err, sizeof(err));
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
s3_flush(struct s3_client *cl, struct s3_spool *sp, struct s3_flush_result *r)
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
			deliver_entry(cl, sp, names[i], &f, r);
	}
	s3_spool_names_free(names, n);
	s3_spool_flush_end(sp);
}
