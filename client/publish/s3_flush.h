/*
 * s3_flush.h - deliver the spool: the objects earlier puts could not.
 */
#ifndef S3_FLUSH_H
#define S3_FLUSH_H

#include <stddef.h>
#include "index_merge.h"
#include "s3_config.h"
#include "s3_http.h"
#include "s3_spool.h"

/* Which server an object is for ("aws" or the endpoint URL): part of its
 * identity in the spool. */
const char *s3_endpoint_id(const struct s3_config *c);

struct s3_flush_result {
	size_t	delivered, remaining;
	size_t	elsewhere;	/* left for a run configured for another endpoint */
	int	transient;	/* stopped on a transient failure */
	char	last_error[1024];
};

/*
 * Deliver spooled objects for cl's endpoint, oldest first.  A transient
 * failure stops it (the endpoint is down: the rest would fail too); a
 * permanent one skips the rest of that bucket, whose objects stay spooled
 * for a person to fix.  Does nothing while another process delivers.
 * Objects named by im (may be NULL) are merged with the bucket's copies.
 */
void s3_flush(struct s3_client *cl, struct s3_spool *sp, const struct index_merge *im,
	      struct s3_flush_result *r);

#endif /* S3_FLUSH_H */
