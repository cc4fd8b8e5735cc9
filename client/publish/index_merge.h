/*
 * index_merge.h - objects that are merged, not replaced, when a version
 * spooled during an S3 outage is delivered: the site's index.  site.c
 * fills one in (site_index_merge); the caller hands it to the S3 sink,
 * which passes it to the spool's delivery (s3_flush.c).  So the sink and
 * the spool know no file names and include no site code.
 */
#ifndef INDEX_MERGE_H
#define INDEX_MERGE_H

struct membuf;

struct index_merge {
	const char	*list;		/* "index.json": spooled rows go over the bucket's */
	const char	*list_type;	/* its content type */
	const char	*page;		/* "index.html": rebuilt from the merged list */
	const char	*page_type;
	/*
	 * The list from newer over older (either may be NULL: no rows), and
	 * the page of the result.  0 with *list (free it) and *page set, or
	 * -1 when out of memory.
	 */
	int		(*merge)(const char *newer, const char *older, char **list,
				 struct membuf *page);
};

#endif /* INDEX_MERGE_H */
