/*
 * sym_debuginfod_disk.c - the directory libdebuginfod caches debug files
 * in (DIR/BUILDID/debuginfo): made 0700 and ours, since what it holds
 * names the functions of every program we profile, and kept under a byte
 * bound by removing the least recently used files (libdebuginfod itself
 * only removes files unused for a week).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sym_debuginfod_priv.h"
#include "lib/array.h"

/* libdebuginfod's own settings files in the cache, written once by us:
 * it would write them with dprintf, whose stream buffer glibc 2.36 leaks
 * (8 KiB a file, seen by LeakSanitizer), and the values are ours to pick. */
static void
write_setting(const char *dir, const char *name, unsigned long long value)
{
	char path[PATH_MAX], text[32];
	struct stat st;
	int fd, n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &st) == 0 && st.st_size > 0)
		return;
	n = snprintf(text, sizeof(text), "%llu", value);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		return;
	if (write(fd, text, n) != n)
		unlink(path);	/* libdebuginfod writes its default instead */
	close(fd);
}

int
dfd_disk_prepare(const struct dfd_config *cfg)
{
	const char *dir = cfg->cache_dir;
	struct stat st;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid())
		return -EPERM;
	if ((st.st_mode & 07777) != 0700 && chmod(dir, 0700) != 0)
		return -errno;
	write_setting(dir, "cache_clean_interval_s", 86400);	/* its defaults ... */
	write_setting(dir, "max_unused_age_s", 7 * 86400);
	/* ... but its negative cache lasts as long as ours (we remove its
	 * empty files anyway, so that a new URL list asks at once) */
	write_setting(dir, "cache_miss_s", cfg->retry_ns / 1000000000u);
	return 0;
}

void
dfd_disk_target(const char *dir, const uint8_t *id, int idlen, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "%s/", dir);

	for (int i = 0; i < idlen && n + 3 < len; i++)
		n += snprintf(out + n, len - n, "%02x", id[i]);
	snprintf(out + n, len > n ? len - n : 0, "/debuginfo");
}

void
dfd_disk_forget(const char *target)
{
	char dir[PATH_MAX];
	char *slash;

	unlink(target);
	snprintf(dir, sizeof(dir), "%s", target);
	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		rmdir(dir);	/* only when empty */
	}
}

void
dfd_disk_touch(const char *target)
{
	struct timespec t[2] = { { .tv_nsec = UTIME_NOW }, { .tv_nsec = UTIME_OMIT } };

	utimensat(AT_FDCWD, target, t, 0);
}

struct cached_file {
	char		name[2 * SYM_BUILD_ID_MAX + 1];	/* its build-id directory */
	char		file[32];
	uint64_t	bytes;
	struct timespec	used;
};

static bool
is_hex_name(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n > 0 && s[n] == '\0' && n <= 2 * SYM_BUILD_ID_MAX;
}

/* The files of one build-id directory appended to *files. */
static bool
list_dir(int top, const char *name, struct cached_file **files, size_t *n, size_t *cap)
{
	int fd = openat(top, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	struct stat st;

	if (dir == NULL) {
		if (fd >= 0)
			close(fd);
		return true;
	}
	while ((de = readdir(dir)) != NULL) {
		/* "debuginfo.XXXXXX" is a download in progress: not ours to remove */
		if (strchr(de->d_name, '.') != NULL || strlen(de->d_name) >= sizeof((*files)->file) ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (array_reserve(files, cap, *n + 1) < 0) {
			closedir(dir);
			return false;
		}
		struct cached_file *f = &(*files)[(*n)++];
		strcpy(f->name, name);
		strcpy(f->file, de->d_name);
		f->bytes = st.st_size;
		f->used = st.st_atim;
	}
	closedir(dir);
	return true;
}

static int
older_first(const void *a, const void *b)
{
	const struct timespec *x = &((const struct cached_file *)a)->used;
	const struct timespec *y = &((const struct cached_file *)b)->used;

	if (x->tv_sec != y->tv_sec)
		return x->tv_sec < y->tv_sec ? -1 : 1;
	return (x->tv_nsec > y->tv_nsec) - (x->tv_nsec < y->tv_nsec);
}

uint64_t
dfd_disk_trim(const char *dirpath, uint64_t max)
{
	int top = open(dirpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = top >= 0 ? fdopendir(top) : NULL;
	struct cached_file *files = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *de;

	if (dir == NULL) {
		if (top >= 0)
			close(top);
		return 0;
	}
	while ((de = readdir(dir)) != NULL)
		if (is_hex_name(de->d_name) && !list_dir(top, de->d_name, &files, &n, &cap))
			break;
	for (size_t i = 0; i < n; i++)
		total += files[i].bytes;
	if (total > max)
		qsort(files, n, sizeof(*files), older_first);
	for (size_t i = 0; i < n && total > max; i++) {
		char rel[sizeof(files[i].name) + sizeof(files[i].file) + 1];
		snprintf(rel, sizeof(rel), "%s/%s", files[i].name, files[i].file);
		if (unlinkat(top, rel, 0) == 0) {
			total -= files[i].bytes;
			unlinkat(top, files[i].name, AT_REMOVEDIR);	/* when empty */
		}
	}
	free(files);
	closedir(dir);
	return total;
}
