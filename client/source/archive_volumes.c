/*
 * archive_volumes.c - an archive's files, the volume being read, and a
 * context over the volumes after a damaged one (archive_volumes.h).
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pcp/pmapi.h>
#include "archive_volumes.h"

/* libpcp's compression suffixes (io.c's compress_ctl) */
static const char *const packed[] = { ".xz", ".lzma", ".bz2", ".bz", ".gz", ".Z", ".z" };

/* Length of name without a compression suffix. */
static size_t
unpacked_len(const char *name)
{
	size_t	i, n = strlen(name);

	for (i = 0; i < sizeof(packed) / sizeof(packed[0]); i++) {
		size_t	k = strlen(packed[i]);

		if (n > k && strcmp(name + n - k, packed[i]) == 0)
			return n - k;
	}
	return n;
}

/* s[0..n) is all digits: its value, else -1. */
static int
digits(const char *s, size_t n)
{
	int	v = 0;
	size_t	i;

	if (n == 0 || n > 6)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* BASE of "BASE", "BASE.meta", "BASE.index", "BASE.7" (each maybe packed). */
static void
base_of(char *name)
{
	size_t	n = unpacked_len(name);
	char	*dot;

	name[n] = '\0';
	if ((dot = strrchr(name, '.')) == NULL || dot == name)
		return;
	if (strcmp(dot, ".meta") == 0 || strcmp(dot, ".index") == 0 ||
	    digits(dot + 1, strlen(dot + 1)) >= 0)
		*dot = '\0';
}

/* One directory entry: the metadata, a volume, or someone else's file. */
static void
take_entry(struct archive_files *f, const char *name)
{
	size_t		bl = strlen(f->base), n;
	const char	*suffix = name + bl + 1;
	int		v;

	if (strncmp(name, f->base, bl) != 0 || name[bl] != '.' || strlen(name) > NAME_MAX)
		return;
	n = unpacked_len(suffix);
	if (n == 4 && strncmp(suffix, "meta", 4) == 0 && f->meta[0] == '\0')
		strcpy(f->meta, name);
	else if ((v = digits(suffix, n)) >= 0 && f->nvol < ARCHIVE_MAX_VOLUMES &&
		 (f->volname[f->nvol] = strdup(name)) != NULL) {
		f->vol[f->nvol++] = v;
	}
}

/* Sort volumes (and their names) by number: few, nearly sorted. */
static void
sort_volumes(struct archive_files *f)
{
	int	i, j;

	for (i = 1; i < f->nvol; i++)
		for (j = i; j > 0 && f->vol[j - 1] > f->vol[j]; j--) {
			int	v = f->vol[j];
			char	*s = f->volname[j];

			f->vol[j] = f->vol[j - 1];
			f->volname[j] = f->volname[j - 1];
			f->vol[j - 1] = v;
			f->volname[j - 1] = s;
		}
}

int
archive_files_find(const char *path, struct archive_files *f)
{
	char		copy[PATH_MAX], copy2[PATH_MAX];
	struct stat	st;
	struct dirent	*e;
	DIR		*d;

	memset(f, 0, sizeof(*f));
	if (strlen(path) >= sizeof(copy) || strchr(path, ',') != NULL ||
	    (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		return -1;
	strcpy(copy, path);
	strcpy(copy2, path);
	if (realpath(dirname(copy), f->dir) == NULL)
		return -1;
	snprintf(f->base, sizeof(f->base), "%s", basename(copy2));
	base_of(f->base);
	if ((d = opendir(f->dir)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		take_entry(f, e->d_name);
	closedir(d);
	sort_volumes(f);
	snprintf(f->prefix, sizeof(f->prefix), "%s/%s.", f->dir, f->base);
	if (f->meta[0] == '\0' || f->nvol == 0) {
		archive_files_free(f);
		return -1;
	}
	return 0;
}

void
archive_files_free(struct archive_files *f)
{
	int	i;

	for (i = 0; i < f->nvol; i++)
		free(f->volname[i]);
	f->nvol = 0;
}

int
archive_volume_open_sigsafe(const char *prefix)
{
	char	link[32] = "/proc/self/fd/", target[PATH_MAX];
	size_t	pl = strlen(prefix);
	int	fd;

	for (fd = 0; fd < 1024; fd++) {
		ssize_t	n;
		size_t	k = 14, d;
		int	v = fd, w = 1;

		while (v / w >= 10)	/* itoa without stdio */
			w *= 10;
		for (; w > 0; w /= 10)
			link[k++] = (char)('0' + (v / w) % 10);
		link[k] = '\0';
		if ((n = readlink(link, target, sizeof(target) - 1)) <= (ssize_t)pl)
			continue;
		target[n] = '\0';
		if (strncmp(target, prefix, pl) != 0)
			continue;
		for (d = pl, v = 0; target[d] >= '0' && target[d] <= '9' && d < pl + 6; d++)
			v = v * 10 + (target[d] - '0');
		if (d > pl && (target[d] == '\0' || target[d] == '.'))
			return v;
	}
	return -1;
}

int
archive_volume_open(const struct archive_files *f)
{
	return f->nvol > 0 ? archive_volume_open_sigsafe(f->prefix) : -1;
}

int
archive_volume_next(const struct archive_files *f, int vol)
{
	int	i;

	for (i = 0; i < f->nvol; i++)
		if (f->vol[i] > vol)
			return f->vol[i];
	return -1;
}

static int
link_into(const char *dir, const struct archive_files *f, const char *name)
{
	char	from[PATH_MAX + NAME_MAX + 2], to[PATH_MAX + NAME_MAX + 2];

	snprintf(from, sizeof(from), "%s/%s", f->dir, name);
	snprintf(to, sizeof(to), "%s/%s", dir, name);
	return symlink(from, to) < 0 ? -oserror() : 0;
}

/* A context over the metadata and volumes lo..hi, through links in dir. */
static int
open_range(const struct archive_files *f, int lo, int hi, const char *scratch,
	   char *dir, size_t dirlen)
{
	char	base[PATH_MAX + NAME_MAX + 2];
	int	i, sts;

	snprintf(dir, dirlen, "%s/volumes.XXXXXX", scratch);
	if (mkdtemp(dir) == NULL)
		return -oserror();
	sts = link_into(dir, f, f->meta);
	for (i = 0; i < f->nvol && sts == 0; i++)
		if (f->vol[i] >= lo && f->vol[i] <= hi)
			sts = link_into(dir, f, f->volname[i]);
	if (sts < 0)
		return sts;
	snprintf(base, sizeof(base), "%s/%s", dir, f->base);
	return pmNewContext(PM_CONTEXT_ARCHIVE, base);
}

int
archive_open_from(const struct archive_files *f, int vol, int before, const char *scratch,
		  char *dir, size_t dirlen)
{
	return open_range(f, vol, before < 0 ? INT_MAX : before - 1, scratch, dir, dirlen);
}

int
archive_open_head(const struct archive_files *f, const char *scratch, char *dir,
		  size_t dirlen, int *damaged)
{
	pmHighResLogLabel	label;
	struct timespec		end;
	int			k, ctx;

	for (k = f->nvol - 2; k >= 0; k--) {
		if ((ctx = open_range(f, f->vol[0], f->vol[k], scratch, dir, dirlen)) >= 0 &&
		    pmGetHighResArchiveLabel(&label) >= 0 && pmGetHighResArchiveEnd(&end) >= 0) {
			*damaged = f->vol[k + 1];
			return ctx;
		}
		if (ctx >= 0)
			pmDestroyContext(ctx);
		archive_links_remove(dir);
	}
	dir[0] = '\0';
	return -1;
}

void
archive_links_remove(const char *dir)
{
	struct dirent	*e;
	char		path[PATH_MAX + NAME_MAX + 2];
	DIR		*d;

	if (dir[0] == '\0' || (d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}
