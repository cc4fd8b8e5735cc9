/*
 * archive_volumes.h - the files of one pmlogger archive (BASE.meta,
 * BASE.0, BASE.1, ... each maybe compressed), which volume libpcp is
 * reading, and a context over the volumes after a damaged one.  Private
 * to source/.
 *
 * libpcp cannot read past a damaged record: pmFetch fails at it, or
 * crashes.  A multi-volume archive keeps its later volumes: a context
 * over BASE.meta and the volumes from N on only (symbolic links in a
 * scratch directory; libpcp takes the lowest volume present as the first)
 * reads them as an archive of their own.  Damage to the last volume
 * that fails the open itself spares the volumes before it the same way.
 */
#ifndef ARCHIVE_VOLUMES_H
#define ARCHIVE_VOLUMES_H

#include <limits.h>
#include <stddef.h>

#define ARCHIVE_MAX_VOLUMES	1024

struct archive_files {
	char	dir[PATH_MAX];		/* absolute */
	char	base[NAME_MAX + 1];	/* "20261130.00.10" */
	char	meta[NAME_MAX + 1];	/* its metadata file's name in dir */
	int	vol[ARCHIVE_MAX_VOLUMES];	/* volume numbers present, ascending */
	char	*volname[ARCHIVE_MAX_VOLUMES];	/* their file names in dir */
	int	nvol;
	char	prefix[PATH_MAX + NAME_MAX + 2];	/* "DIR/BASE." */
};

/*
 * Find the files of the archive path names (BASE, BASE.meta, BASE.0,
 * ...).  -1 when they cannot be listed (a directory or a list of
 * archives): then no volume is known and nothing is resumed.
 */
int archive_files_find(const char *path, struct archive_files *f);
void archive_files_free(struct archive_files *f);

/* The volume libpcp has open now (from /proc/self/fd), or -1. */
int archive_volume_open(const struct archive_files *f);
/* The same from a signal handler: only async-signal-safe calls. */
int archive_volume_open_sigsafe(const char *prefix);

/* The first volume after vol, or -1 when vol is the last. */
int archive_volume_next(const struct archive_files *f, int vol);

/*
 * A new archive context (current) over the metadata and the volumes from
 * vol on, up to the volume before (-1: to the last), through links in a
 * new directory under scratch; its path in dir (remove it with
 * archive_links_remove).  The context or a PCP error.
 */
int archive_open_from(const struct archive_files *f, int vol, int before, const char *scratch,
		      char *dir, size_t dirlen);
void archive_links_remove(const char *dir);

/*
 * The archive cannot be opened whole, but maybe its first volumes can:
 * libpcp reads the last volume to find the archive's end, so damage there
 * fails the open.  The context (current) over the metadata and the most
 * volumes from the first on that open, with a label and an end, through
 * links in dir; *damaged the volume after them.  -1 (dir "") when not
 * even the first volume opens so.
 */
int archive_open_head(const struct archive_files *f, const char *scratch, char *dir,
		      size_t dirlen, int *damaged);

#endif /* ARCHIVE_VOLUMES_H */
