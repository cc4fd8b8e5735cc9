/*
 * s3_spool.h - objects that could not be delivered to S3 wait here, on
 * local disk, until a later run (or pmflame --flush) delivers them.
 *
 * Directory: $PMFLAME_SPOOL, else /var/spool/pmflame for root, else
 * ${XDG_STATE_HOME:-~/.local/state}/pmflame/spool.  One file per object,
 * named TIME-PID-SEQ-KEYHASH.obj so that a name sort is oldest first and
 * entries for one key are found without opening files.  A file holds a
 * short text header (endpoint, bucket, key, content type, length, SHA-256)
 * and the body.  The endpoint ("aws" or AWS_ENDPOINT_URL) is part of an
 * object's identity: an object meant for one server is never delivered to
 * another that has a bucket of the same name.  Files are written under a ".tmp-" name, fsynced, then renamed:
 * a crash leaves a temp file, which is ignored (and removed once stale),
 * never a short entry.  Limits: $PMFLAME_SPOOL_MAX_BYTES (default 256M) and
 * $PMFLAME_SPOOL_MAX_FILES (default 10000); past them an add fails loudly.
 */
#ifndef S3_SPOOL_H
#define S3_SPOOL_H

#include <stdbool.h>
#include <stddef.h>

struct s3_spool {
	char			*dir;
	unsigned long long	max_bytes;
	unsigned long		max_files;
	int			lock_fd;	/* DIR/.lock: serialises adds and removals */
	int			flush_fd;	/* DIR/.flush: one deliverer at a time */
};

struct s3_spool_entry {
	char	*endpoint, *bucket, *key, *content_type;
	char	*body;		/* NUL-terminated for convenience */
	size_t	len;
};

/* Find the directory and limits, create the directory (mode 0700). */
int s3_spool_open(struct s3_spool *sp, char *err, size_t errlen);
void s3_spool_close(struct s3_spool *sp);

/* Default directory for this user, as documented above (malloc'd). */
char *s3_spool_default_dir(void);

/*
 * Store an object durably.  Older entries for the same bucket and key are
 * removed once the new one is safe: only the newest version matters.
 * -1 with a message in err when it does not fit the limits or disk fails.
 */
int s3_spool_add(struct s3_spool *sp, const char *endpoint, const char *bucket, const char *key,
		 const char *content_type, const void *body, size_t len,
		 char *err, size_t errlen);

/* Names of complete entries, oldest first; free with s3_spool_names_free. */
int s3_spool_list(struct s3_spool *sp, char ***names, size_t *n, char *err, size_t errlen);
void s3_spool_names_free(char **names, size_t n);

/*
 * Read an entry.  0 ok; -1 it is gone (delivered by someone else); -2 it is
 * damaged: it is renamed "damaged-NAME" so it stops blocking delivery but
 * is kept for a person to look at, and err says so.
 */
int s3_spool_read(struct s3_spool *sp, const char *name, struct s3_spool_entry *e,
		  char *err, size_t errlen);
void s3_spool_entry_free(struct s3_spool_entry *e);

/* Remove a delivered entry (already gone is fine). */
int s3_spool_remove(struct s3_spool *sp, const char *name);

/* Whether an entry for endpoint+bucket+key waits; if e, read the newest. */
bool s3_spool_find(struct s3_spool *sp, const char *endpoint, const char *bucket, const char *key,
		   struct s3_spool_entry *e);

/* Bytes of every file in the spool and the number of entries. */
void s3_spool_usage(struct s3_spool *sp, unsigned long long *bytes, unsigned long *files);

/* Take DIR/.flush without waiting: false when another process delivers. */
bool s3_spool_flush_begin(struct s3_spool *sp);
void s3_spool_flush_end(struct s3_spool *sp);

#endif /* S3_SPOOL_H */
