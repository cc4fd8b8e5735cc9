/*
 * sink.h - where pmflame's outputs go: a directory (-o DIR) or an
 * S3-compatible bucket (-o s3://bucket/prefix/).  A put is all or nothing:
 * a reader never sees a half-written object.
 */
#ifndef SINK_H
#define SINK_H

#include <stddef.h>

struct sink;
struct index_merge;	/* index_merge.h */

struct sink_ops {
	/* Store data under relpath (a '/'-separated name made by sink_safe_name
	 * parts).  Returns 0, or -1 with a message in err. */
	int	(*put)(struct sink *s, const char *relpath, const char *content_type,
		       const void *data, size_t len, char *err, size_t errlen);
	/* Read back an object we wrote (for index merging); -1 when absent. */
	int	(*get)(struct sink *s, const char *relpath, char **data, size_t *len);
	/* Free s; returns how many objects stay spooled, not delivered. */
	unsigned long (*close)(struct sink *s);
	/* Optional: hold off other processes' read-merge-write of the index
	 * between lock and unlock. */
	void	(*lock)(struct sink *s);
	void	(*unlock)(struct sink *s);
	/* Optional: store under relpath the object just put under from,
	 * without its bytes (a hard link); -1 to have them put again. */
	int	(*copy)(struct sink *s, const char *from, const char *relpath);
	/* Optional: an object written a piece at a time (see sink_stage_open);
	 * without these, a stage holds the pieces and puts them whole. */
	int	(*stage_open)(struct sink *s, const char *relpath, void **impl,
			      char *err, size_t errlen);
	int	(*stage_write)(void *impl, const void *data, size_t len);
	int	(*stage_end)(void *impl, char *err, size_t errlen);
	int	(*stage_commit)(void *impl, char *err, size_t errlen);
	void	(*stage_abort)(void *impl);
};

struct sink {
	const struct sink_ops	*ops;
	char			*target;	/* as given by the user, for messages */
};

/*
 * Open DIR or s3://bucket/prefix; NULL with a message in err.  im (may be
 * NULL) names the objects the S3 sink merges rather than replaces when it
 * delivers spooled versions (the site's index: site_index_merge).
 */
struct sink *sink_open(const char *target, const struct index_merge *im,
		       char *err, size_t errlen);
struct sink *sink_dir_open(const char *dir, char *err, size_t errlen);
struct sink *sink_s3_open(const char *url, const struct index_merge *im,
			  char *err, size_t errlen);

/*
 * Deliver what earlier runs spooled after failed S3 uploads (pmflame
 * --flush), merging the objects im names.  Returns the number of objects
 * still spooled, or -1 with a message in err.
 */
int sink_s3_flush_spool(const struct index_merge *im, char *err, size_t errlen);

int sink_put(struct sink *s, const char *relpath, const char *content_type,
	     const void *data, size_t len, char *err, size_t errlen);
/*
 * The same bytes, just put under from, stored under relpath as well (the
 * latest.* copies): linked where the sink can, so a 70 MB profile is
 * written once, else put again.  Returns as sink_put.
 */
int sink_put_copy(struct sink *s, const char *from, const char *relpath,
		  const char *content_type, const void *data, size_t len,
		  char *err, size_t errlen);
/*
 * An object too big to hold whole (a 3 M-node profile's JSON is 70 MB):
 * opened, written a piece at a time, ended, and only then committed, when
 * it appears under relpath (and copy, if not NULL) as a put would: all or
 * nothing.  An ended stage holds no descriptor, so a run may end many
 * before it commits any.  Open returns NULL with a message in err; write
 * returns 0 or -1 with errno (it fits membuf_init_drained); end and commit
 * return 0 or -1 with a message; commit and abort free the stage, and
 * abort (of NULL too) leaves nothing behind.
 */
struct sink_stage;
struct sink_stage *sink_stage_open(struct sink *s, const char *relpath,
				   const char *content_type, char *err, size_t errlen);
int sink_stage_write(void *stage, const void *data, size_t len);
int sink_stage_end(struct sink_stage *st, char *err, size_t errlen);
int sink_stage_commit(struct sink_stage *st, const char *copy, char *err, size_t errlen);
void sink_stage_abort(struct sink_stage *st);

/* Read back an object (at most SINK_GET_MAX bytes: only index.json is
 * read back, and a bigger one is not ours); -1 when absent, too large or
 * the sink cannot read.  The S3 sink
 * returns -2 when the object cannot be known now (S3 unreachable, nothing
 * spooled or seen): not absent, so do not overwrite it from nothing. */
#define SINK_GET_MAX	(16 << 20)
int sink_get(struct sink *s, const char *relpath, char **data, size_t *len);
/* Close s (NULL: nothing); the objects its sink leaves spooled, not yet
 * delivered (S3 unreachable): 0 for a directory. */
unsigned long sink_close(struct sink *s);
/* Around a read-modify-write of one object; a no-op where the sink has no
 * lock (S3: the last writer wins). */
void sink_lock(struct sink *s);
void sink_unlock(struct sink *s);

/*
 * Turn any process or host name into one safe path component: no '/', no
 * leading '.', no control characters or spaces, bounded length; never empty.
 * Different inputs may map to the same output only if they differ in
 * replaced characters.
 */
void sink_safe_name(const char *in, char *out, size_t outlen);

/* s[0..n) is one component of the kind sink_safe_name makes (any length up
 * to NAME_MAX): 1 or 0. */
int sink_name_is_safe(const char *s, size_t n);

#endif /* SINK_H */
