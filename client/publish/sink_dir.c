/*
 * sink_dir.c - the -o DIR sink: a plain directory a web server can serve.
 *
 * Every object is written to a temporary file beside its final name,
 * fsync'd, then renamed over it, and the directory is fsync'd: a reader
 * (or a crash) sees the old object or the new one, never half of either.
 * Paths are walked one component at a time below an open descriptor of
 * DIR with O_NOFOLLOW, so neither a hostile relpath nor a symlink planted
 * inside DIR can make us write outside it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sink.h"
#include "common/util.h"

struct dir_sink {
	struct sink	base;
	int		dirfd;
};

static unsigned long	tmp_counter;

/* A component we are willing to create: what sink_safe_name produces. */
static int
component_ok(const char *c, size_t n)
{
	size_t	i;

	if (n == 0 || c[0] == '.' || n > 255)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)c[i] < 0x20 || c[i] == 0x7f || c[i] == '\\')
			return 0;
	return 1;
}

/*
 * Open (creating when asked) every directory of relpath below base and
 * return a descriptor of the last one; *leaf points at the file name.
 */
static int
walk_dirs(int base, const char *relpath, int create, const char **leaf)
{
	const char	*p = relpath, *slash;
	char		comp[256];
	int		fd = dup(base), next;

	if (fd < 0)
		return -1;
	while ((slash = strchr(p, '/')) != NULL) {
		size_t	n = (size_t)(slash - p);

		if (!component_ok(p, n)) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (create && mkdirat(fd, comp, 0755) < 0 && errno != EEXIST) {
			close(fd);
			return -1;
		}
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return -1;
		fd = next;
		p = slash + 1;
	}
	if (!component_ok(p, strlen(p))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	*leaf = p;
	return fd;
}


/*
 * A stage is a temporary file beside its final name.  Its descriptor
 * lives from open to end only: a run ends every output it renders before
 * it commits any, and there may be thousands.
 */
struct dir_stage {
	struct dir_sink	*d;
	char		*relpath;
	char		tmp[300];
	int		fd;
	off_t		written;
};

static void
stage_fail(struct dir_stage *st, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot %s %s/%s: %s", what, st->d->base.target, st->relpath,
		 strerror(errno));
}

static int
dir_stage_open(struct sink *s, const char *relpath, void **impl, char *err, size_t errlen)
{
	struct dir_sink		*d = (struct dir_sink *)s;
	struct dir_stage	*st = calloc(1, sizeof(*st));
	const char		*leaf;
	int			dfd, saved;

	if (st == NULL || (st->relpath = strdup(relpath)) == NULL) {
		snprintf(err, errlen, "out of memory");
		free(st);
		return -1;
	}
	st->d = d;
	st->fd = -1;
	if ((dfd = walk_dirs(d->dirfd, relpath, 1, &leaf)) < 0) {
		stage_fail(st, "create directories for", err, errlen);
		goto fail;
	}
	snprintf(st->tmp, sizeof(st->tmp), ".%.200s.tmp.%d.%lu", leaf, (int)getpid(),
		 tmp_counter++);
	st->fd = openat(dfd, st->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0644);
	saved = errno;
	close(dfd);
	errno = saved;
	if (st->fd < 0) {
		stage_fail(st, "write", err, errlen);
		goto fail;
	}
	*impl = st;
	return 0;
fail:
	free(st->relpath);
	free(st);
	return -1;
}

/*
 * Writeback of each piece starts as it is written: the fsync at the end
 * then waits for the last piece, not for 70 MB (40 ms here).  Only a
 * hint, so its failure is not one.
 */
static int
dir_stage_write(void *impl, const void *data, size_t len)
{
	struct dir_stage	*st = impl;

	if (write_all(st->fd, data, len) < 0)
		return -1;
	(void)sync_file_range(st->fd, st->written, (off_t)len, SYNC_FILE_RANGE_WRITE);
	st->written += (off_t)len;
	return 0;
}

static int
dir_stage_end(void *impl, char *err, size_t errlen)
{
	struct dir_stage	*st = impl;
	int			sts = fsync(st->fd);

	if (close(st->fd) < 0)
		sts = -1;
	st->fd = -1;
	if (sts < 0)
		stage_fail(st, "write", err, errlen);
	return sts;
}

/* Remove the temporary file (of a stage that did not commit) and free. */
static void
dir_stage_abort(void *impl)
{
	struct dir_stage	*st = impl;
	const char		*leaf;
	int			dfd, saved = errno;

	if (st->fd >= 0)
		close(st->fd);
	if ((dfd = walk_dirs(st->d->dirfd, st->relpath, 0, &leaf)) >= 0) {
		unlinkat(dfd, st->tmp, 0);
		close(dfd);
	}
	free(st->relpath);
	free(st);
	errno = saved;
}

/* The ended file renamed over its final name; the directory fsync'd so
 * that the rename is durable (nothing to undo if that fails). */
static int
dir_stage_commit(void *impl, char *err, size_t errlen)
{
	struct dir_stage	*st = impl;
	const char		*leaf;
	int			dfd;

	if ((dfd = walk_dirs(st->d->dirfd, st->relpath, 0, &leaf)) < 0 ||
	    renameat(dfd, st->tmp, dfd, leaf) < 0) {
		stage_fail(st, "write", err, errlen);
		if (dfd >= 0)
			close(dfd);
		dir_stage_abort(st);
		return -1;
	}
	fsync(dfd);
	close(dfd);
	free(st->relpath);
	free(st);
	return 0;
}

static int
dir_put(struct sink *s, const char *relpath, const char *content_type,
	const void *data, size_t len, char *err, size_t errlen)
{
	void	*st;

	(void)content_type;	/* a web server derives it from the suffix */
	if (dir_stage_open(s, relpath, &st, err, errlen) < 0)
		return -1;
	if (dir_stage_write(st, data, len) < 0) {
		stage_fail(st, "write", err, errlen);
		dir_stage_abort(st);
		return -1;
	}
	if (dir_stage_end(st, err, errlen) < 0) {
		dir_stage_abort(st);
		return -1;
	}
	return dir_stage_commit(st, err, errlen);
}

/* relpath as a copy of from's bytes, where hard links are refused. */
static int
copy_bytes(struct sink *s, int sfd, const char *src, const char *relpath)
{
	char	buf[1 << 16], err[256];
	void	*st;
	ssize_t	n;
	int	fd = openat(sfd, src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), saved;

	if (fd < 0 || dir_stage_open(s, relpath, &st, err, sizeof(err)) < 0) {
		saved = errno;
		if (fd >= 0)
			close(fd);
		errno = saved;
		return -1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0 && dir_stage_write(st, buf, (size_t)n) == 0)
		;
	saved = errno;
	close(fd);
	if (n != 0 || dir_stage_end(st, err, sizeof(err)) < 0) {
		dir_stage_abort(st);
		errno = n != 0 ? saved : EIO;
		return -1;
	}
	return dir_stage_commit(st, err, sizeof(err));
}

/*
 * relpath as a second name of from's file: the data was fsync'd by its
 * put, so only the new name must be made durable.  Files here are only
 * ever replaced by rename, never changed in place, so two names of one
 * file are as good as two copies.  Where the file system has no hard
 * links, a copy of the bytes: a staged output is no longer in memory to
 * be put again.
 */
static int
dir_copy(struct sink *s, const char *from, const char *relpath)
{
	struct dir_sink	*d = (struct dir_sink *)s;
	const char	*src, *leaf;
	char		tmp[300];
	int		sfd, dfd, sts = -1, saved;

	if ((sfd = walk_dirs(d->dirfd, from, 0, &src)) < 0)
		return -1;
	if ((dfd = walk_dirs(d->dirfd, relpath, 1, &leaf)) >= 0) {
		snprintf(tmp, sizeof(tmp), ".%.200s.tmp.%d.%lu", leaf, (int)getpid(),
			 tmp_counter++);
		if (linkat(sfd, src, dfd, tmp, 0) == 0) {
			if (renameat(dfd, tmp, dfd, leaf) == 0) {
				fsync(dfd);
				sts = 0;
			} else
				unlinkat(dfd, tmp, 0);
		} else if (errno == EPERM || errno == EXDEV || errno == EOPNOTSUPP ||
			   errno == EMLINK)
			sts = copy_bytes(s, sfd, src, relpath);
		close(dfd);
	}
	saved = errno;
	close(sfd);
	errno = saved;
	return sts;
}

static int
dir_get(struct sink *s, const char *relpath, char **data, size_t *len)
{
	struct dir_sink	*d = (struct dir_sink *)s;
	const char	*leaf;
	struct stat	st;
	char		*buf;
	ssize_t		n;
	size_t		got = 0;
	int		dfd, fd;

	if ((dfd = walk_dirs(d->dirfd, relpath, 0, &leaf)) < 0)
		return -1;
	fd = openat(dfd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > SINK_GET_MAX) {
		fprintf(stderr, "pmflame: warning: %s is %lld bytes, more than %d MiB: not read\n",
			relpath, (long long)st.st_size, SINK_GET_MAX >> 20);
		close(fd);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (buf = malloc((size_t)st.st_size + 1)) == NULL) {
		close(fd);
		return -1;
	}
	while (got < (size_t)st.st_size &&
	       (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	*data = buf;
	*len = got;
	return 0;
}

static unsigned long
dir_close(struct sink *s)
{
	struct dir_sink	*d = (struct dir_sink *)s;

	close(d->dirfd);
	free(s->target);
	free(d);
	return 0;
}

/*
 * flock on our own descriptor of the directory: other pmflame processes
 * writing here wait, and a crashed one releases it by exiting.  Where the
 * file system refuses (flock on a directory over NFS) we go on unlocked,
 * as before: a lost index row is better than no profile.
 */
static void
dir_lock(struct sink *s)
{
	struct dir_sink	*d = (struct dir_sink *)s;

	while (flock(d->dirfd, LOCK_EX) < 0 && errno == EINTR)
		;
}

static void
dir_unlock(struct sink *s)
{
	struct dir_sink	*d = (struct dir_sink *)s;

	(void)flock(d->dirfd, LOCK_UN);
}

static const struct sink_ops dir_ops = {
	.put = dir_put, .get = dir_get, .close = dir_close,
	.lock = dir_lock, .unlock = dir_unlock, .copy = dir_copy,
	.stage_open = dir_stage_open, .stage_write = dir_stage_write,
	.stage_end = dir_stage_end, .stage_commit = dir_stage_commit,
	.stage_abort = dir_stage_abort,
};

/* mkdir -p: DIR may be new, its parents too. */
static int
make_path(const char *dir)
{
	char	*copy = strdup(dir), *p;
	int	sts = 0;

	if (copy == NULL)
		return -1;
	for (p = copy + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char	c = *p;

			*p = '\0';
			if (mkdir(copy, 0755) < 0 && errno != EEXIST) {
				sts = -1;
				break;
			}
			*p = c;
			if (c == '\0')
				break;
		}
	}
	free(copy);
	return sts;
}

/*
 * Open DIR, creating it if needed, and prove we can write there now:
 * better to fail before profiling for a minute than after.
 */
struct sink *
sink_dir_open(const char *dir, char *err, size_t errlen)
{
	struct dir_sink	*d;
	char		probe[64];
	int		fd, pfd;

	if (make_path(dir) < 0) {
		snprintf(err, errlen, "cannot create directory %s: %s", dir, strerror(errno));
		return NULL;
	}
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot open directory %s: %s", dir, strerror(errno));
		return NULL;
	}
	snprintf(probe, sizeof(probe), ".pmflame-probe.%d", (int)getpid());
	if ((pfd = openat(fd, probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		snprintf(err, errlen, "cannot write in directory %s: %s", dir, strerror(errno));
		close(fd);
		return NULL;
	}
	close(pfd);
	unlinkat(fd, probe, 0);
	if ((d = calloc(1, sizeof(*d))) == NULL || (d->base.target = strdup(dir)) == NULL) {
		snprintf(err, errlen, "out of memory");
		free(d);
		close(fd);
		return NULL;
	}
	d->base.ops = &dir_ops;
	d->dirfd = fd;
	return &d->base;
}
