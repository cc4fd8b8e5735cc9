/*
 * s3_spool.c - the durable queue of undelivered S3 objects (see s3_spool.h
 * for the layout).  Every step that a crash could interrupt leaves either
 * the old state or the new one: entries appear by rename after fsync, and
 * an older version of a key is removed only after the newer one is safe.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "s3_http.h"
#include "s3_key.h"
#include "s3_spool.h"
#include "lib/array.h"
#include "common/util.h"

#define SPOOL_MAGIC		"pmflame-spool 1\n"
#define HEADER_MAX		8192		/* endpoint, bucket 63, key 1024, type 255, numbers */
#define HASH_CHARS		16
#define STALE_TEMP_SECS		600		/* a writer holds a temp file for less */
#define DEFAULT_MAX_BYTES	(256ULL << 20)
#define DEFAULT_MAX_FILES	10000UL


char *
s3_spool_default_dir(void)
{
	const char	*state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char		*dir;

	if (geteuid() == 0)
		return strdup("/var/spool/pmflame");
	if (state && *state)
		return asprintf(&dir, "%s/pmflame/spool", state) < 0 ? NULL : dir;
	return asprintf(&dir, "%s/.local/state/pmflame/spool", home && *home ? home : "/tmp") < 0
		? NULL : dir;
}

/* "123", "64k", "256M", "1G"; 0 when unset; -1 when malformed. */
static long long
env_size(const char *name)
{
	const char	*v = getenv(name);
	char		*end;
	unsigned long long n;

	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoull(v, &end, 10);
	switch (*end) {
	case 'k': case 'K': n <<= 10; end++; break;
	case 'm': case 'M': n <<= 20; end++; break;
	case 'g': case 'G': n <<= 30; end++; break;
	}
	if (errno || *end || n == 0 || n > (1ULL << 50) || *v == '-')
		return -1;
	return (long long)n;
}

static int
mkdir_p(char *path, mode_t mode)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, mode) < 0 && errno != EEXIST ? -1 : 0;
}

static int
open_lock_file(struct s3_spool *sp, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", sp->dir, name);
	return open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
}

static void
remove_stale_temps(struct s3_spool *sp)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	st;
	time_t		now = time(NULL);

	if ((d = opendir(sp->dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, ".tmp-", 5) != 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && now - st.st_mtime > STALE_TEMP_SECS)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

int
s3_spool_open(struct s3_spool *sp, char *err, size_t errlen)
{
	const char	*env = getenv("PMFLAME_SPOOL");
	long long	mb = env_size("PMFLAME_SPOOL_MAX_BYTES");
	long long	mf = env_size("PMFLAME_SPOOL_MAX_FILES");

	memset(sp, 0, sizeof(*sp));
	sp->lock_fd = sp->flush_fd = -1;
	if (mb < 0 || mf < 0) {
		seterr(err, errlen, "%s must be a positive number (suffix k, M or G allowed)",
		       mb < 0 ? "PMFLAME_SPOOL_MAX_BYTES" : "PMFLAME_SPOOL_MAX_FILES");
		return -1;
	}
	sp->max_bytes = mb ? (unsigned long long)mb : DEFAULT_MAX_BYTES;
	sp->max_files = mf ? (unsigned long)mf : DEFAULT_MAX_FILES;
	sp->dir = env && *env ? strdup(env) : s3_spool_default_dir();
	if (!sp->dir || !*sp->dir) {
		seterr(err, errlen, "out of memory");
		goto fail;
	}
	if (mkdir_p(sp->dir, 0700) < 0 || access(sp->dir, W_OK | X_OK) < 0) {
		seterr(err, errlen, "spool directory %s: %s (set PMFLAME_SPOOL to a writable directory)",
		       sp->dir, strerror(errno));
		goto fail;
	}
	if ((sp->lock_fd = open_lock_file(sp, ".lock")) < 0 ||
	    (sp->flush_fd = open_lock_file(sp, ".flush")) < 0) {
		seterr(err, errlen, "spool directory %s: cannot create lock files: %s",
		       sp->dir, strerror(errno));
		goto fail;
	}
	remove_stale_temps(sp);
	return 0;
fail:
	s3_spool_close(sp);
	return -1;
}

void
s3_spool_close(struct s3_spool *sp)
{
	if (sp->lock_fd >= 0)
		close(sp->lock_fd);
	if (sp->flush_fd >= 0)
		close(sp->flush_fd);
	free(sp->dir);
	memset(sp, 0, sizeof(*sp));
	sp->lock_fd = sp->flush_fd = -1;
}

static void lock(struct s3_spool *sp)   { while (flock(sp->lock_fd, LOCK_EX) < 0 && errno == EINTR); }
static void unlock(struct s3_spool *sp) { flock(sp->lock_fd, LOCK_UN); }

bool
s3_spool_flush_begin(struct s3_spool *sp)
{
	return flock(sp->flush_fd, LOCK_EX | LOCK_NB) == 0;
}

void
s3_spool_flush_end(struct s3_spool *sp)
{
	flock(sp->flush_fd, LOCK_UN);
}

/* Entries are "DIGITS-...-HASH.obj"; temp, lock and damaged files are not. */
static bool
is_entry(const char *name)
{
	size_t n = strlen(name);

	return n > 4 + HASH_CHARS + 21 && name[0] >= '0' && name[0] <= '9' &&
	       strcmp(name + n - 4, ".obj") == 0;
}

static void
key_hash(const char *endpoint, const char *bucket, const char *key, char out[HASH_CHARS + 1])
{
	char	hex[65], *both;

	if (asprintf(&both, "%s %s/%s", endpoint, bucket, key) < 0) {
		memset(out, '0', HASH_CHARS);
	} else {
		s3_sha256_hex(both, strlen(both), hex);
		memcpy(out, hex, HASH_CHARS);
		free(both);
	}
	out[HASH_CHARS] = '\0';
}

static bool
has_hash(const char *name, const char *hash)
{
	size_t n = strlen(name);

	return is_entry(name) && strncmp(name + n - 4 - HASH_CHARS, hash, HASH_CHARS) == 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries whose key hash is hash (all entries when hash is NULL), sorted. */
static int
list_matching(struct s3_spool *sp, const char *hash, char ***names, size_t *n)
{
	DIR		*d;
	struct dirent	*de;
	char		**v = NULL;
	size_t		cnt = 0, cap = 0;

	*names = NULL;
	*n = 0;
	if ((d = opendir(sp->dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (!(hash ? has_hash(de->d_name, hash) : is_entry(de->d_name)))
			continue;
		if (array_reserve(&v, &cap, cnt + 1) < 0)
			goto nomem;
		if ((v[cnt] = strdup(de->d_name)) == NULL)
			goto nomem;
		cnt++;
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_names);
	*names = v;
	*n = cnt;
	return 0;
nomem:
	closedir(d);
	s3_spool_names_free(v, cnt);
	errno = ENOMEM;
	return -1;
}

int
s3_spool_list(struct s3_spool *sp, char ***names, size_t *n, char *err, size_t errlen)
{
	if (list_matching(sp, NULL, names, n) < 0) {
		seterr(err, errlen, "cannot list spool %s: %s", sp->dir, strerror(errno));
		return -1;
	}
	return 0;
}

void
s3_spool_names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void
s3_spool_usage(struct s3_spool *sp, unsigned long long *bytes, unsigned long *files)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	st;

	*bytes = 0;
	*files = 0;
	if ((d = opendir(sp->dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		*bytes += st.st_size;
		*files += is_entry(de->d_name);
	}
	closedir(d);
}


/* Write header+body to DIR/.tmp-NAME, fsync, rename to DIR/NAME, fsync DIR. */
static int
write_entry(struct s3_spool *sp, const char *name, const char *hdr, size_t hlen,
	    const void *body, size_t len)
{
	char	tmp[4096], final[4096];
	int	fd, dfd, saved;

	snprintf(tmp, sizeof(tmp), "%s/.tmp-%s", sp->dir, name);
	snprintf(final, sizeof(final), "%s/%s", sp->dir, name);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		return -1;
	if (write_all(fd, hdr, hlen) < 0 || write_all(fd, body, len) < 0 || fsync(fd) < 0) {
		saved = errno;
		close(fd);
		unlink(tmp);
		errno = saved;
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, final) < 0) {
		saved = errno;
		unlink(tmp);
		errno = saved;
		return -1;
	}
	if ((dfd = open(sp->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(dfd);	/* makes the rename itself durable */
		close(dfd);
	}
	return 0;
}

static bool
printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* Unique, time-ordered entry name; time never goes backwards within a process. */
static void
entry_name(char *out, size_t outlen, const char *hash)
{
	static unsigned long long	last;
	static unsigned			seq;
	struct timespec			ts;
	unsigned long long		now;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	if (now <= last)
		now = last + 1;
	last = now;
	snprintf(out, outlen, "%020llu-%d-%u-%s.obj", now, (int)getpid(), seq++, hash);
}

/* Whether entry NAME is for endpoint, bucket and key: key hashes may collide. */
static bool
entry_is_for(struct s3_spool *sp, const char *name, const char *endpoint,
	     const char *bucket, const char *key)
{
	char	path[4096], want[HEADER_MAX], got[HEADER_MAX];
	int	fd, wlen;
	ssize_t	n;

	wlen = snprintf(want, sizeof(want), SPOOL_MAGIC "endpoint: %s\nbucket: %s\nkey: %s\n",
			endpoint, bucket, key);
	snprintf(path, sizeof(path), "%s/%s", sp->dir, name);
	if (wlen < 0 || wlen >= (int)sizeof(want) || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	n = read(fd, got, wlen);
	close(fd);
	return n == wlen && memcmp(got, want, wlen) == 0;
}

static unsigned long long
file_size(struct s3_spool *sp, const char *name)
{
	char		path[4096];
	struct stat	st;

	snprintf(path, sizeof(path), "%s/%s", sp->dir, name);
	return stat(path, &st) == 0 ? (unsigned long long)st.st_size : 0;
}

int
s3_spool_add(struct s3_spool *sp, const char *endpoint, const char *bucket, const char *key,
	     const char *content_type, const void *body, size_t len,
	     char *err, size_t errlen)
{
	char			hdr[HEADER_MAX], hash[HASH_CHARS + 1], name[256], sha[65];
	char			**older = NULL;
	size_t			nolder = 0, i;
	unsigned long long	bytes, freed = 0;
	unsigned long		files;
	int			hlen, rc = -1;

	if (!printable(endpoint) || !printable(bucket) || !printable(key) || !printable(content_type)) {
		seterr(err, errlen, "s3://%s/%s: cannot spool a name with control characters", bucket, key);
		return -1;
	}
	s3_sha256_hex(body, len, sha);
	hlen = snprintf(hdr, sizeof(hdr), SPOOL_MAGIC "endpoint: %s\nbucket: %s\nkey: %s\n"
			"content-type: %s\nlength: %zu\nsha256: %s\n\n",
			endpoint, bucket, key, content_type, len, sha);
	if (hlen < 0 || hlen >= (int)sizeof(hdr)) {
		seterr(err, errlen, "s3://%s/%s: names too long to spool", bucket, key);
		return -1;
	}
	key_hash(endpoint, bucket, key, hash);
	entry_name(name, sizeof(name), hash);

	lock(sp);
	if (list_matching(sp, hash, &older, &nolder) < 0) {
		seterr(err, errlen, "cannot list spool %s: %s", sp->dir, strerror(errno));
		goto out;
	}
	for (i = 0; i < nolder; i++) {
		if (!entry_is_for(sp, older[i], endpoint, bucket, key)) {
			free(older[i]);		/* another key that shares the hash */
			older[i] = older[--nolder];
			older[nolder] = NULL;
			i--;
			continue;
		}
		freed += file_size(sp, older[i]);
	}
	s3_spool_usage(sp, &bytes, &files);
	if (bytes - (freed < bytes ? freed : bytes) + hlen + len > sp->max_bytes ||
	    files - (nolder < files ? nolder : files) + 1 > sp->max_files) {
		seterr(err, errlen, "SPOOL FULL: %s holds %lu objects, %llu bytes (limits %lu, %llu: "
		       "PMFLAME_SPOOL_MAX_FILES, PMFLAME_SPOOL_MAX_BYTES); s3://%s/%s (%zu bytes) "
		       "was NOT saved", sp->dir, files, bytes, sp->max_files, sp->max_bytes,
		       bucket, key, len);
		goto out;
	}
	if (write_entry(sp, name, hdr, hlen, body, len) < 0) {
		seterr(err, errlen, "cannot spool s3://%s/%s in %s: %s; the object was NOT saved",
		       bucket, key, sp->dir, strerror(errno));
		goto out;
	}
	/* the new version is safe: the older ones of this key are now redundant */
	for (i = 0; i < nolder; i++)
		s3_spool_remove(sp, older[i]);
	rc = 0;
out:
	unlock(sp);
	s3_spool_names_free(older, nolder);
	return rc;
}

int
s3_spool_remove(struct s3_spool *sp, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", sp->dir, name);
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* Take "NAME: value\n" at *p into a malloc'd string; NULL if not there. */
static char *
header_field(const char **p, const char *end, const char *field)
{
	size_t		flen = strlen(field);
	const char	*nl;

	if ((size_t)(end - *p) < flen + 2 || strncmp(*p, field, flen) != 0 ||
	    (*p)[flen] != ':' || (*p)[flen + 1] != ' ')
		return NULL;
	if ((nl = memchr(*p, '\n', end - *p)) == NULL)
		return NULL;
	*p += flen + 2;
	{
		char *v = strndup(*p, nl - *p);

		*p = nl + 1;
		return v;
	}
}

/* Parse a whole entry file in buf; 0, or -1 when it is not a sound entry. */
static int
parse_entry(char *buf, size_t size, struct s3_spool_entry *e)
{
	const char	*p = buf, *end = buf + size;
	char		*length = NULL, *sha = NULL, *stop, hex[65];
	unsigned long long n;
	int		rc = -1;

	memset(e, 0, sizeof(*e));
	if (size < strlen(SPOOL_MAGIC) || strncmp(p, SPOOL_MAGIC, strlen(SPOOL_MAGIC)) != 0)
		return -1;
	p += strlen(SPOOL_MAGIC);
	if (!(e->endpoint = header_field(&p, end, "endpoint")) ||
	    !(e->bucket = header_field(&p, end, "bucket")) ||
	    !(e->key = header_field(&p, end, "key")) ||
	    !(e->content_type = header_field(&p, end, "content-type")) ||
	    !(length = header_field(&p, end, "length")) ||
	    !(sha = header_field(&p, end, "sha256")) || p >= end || *p != '\n' ||
	    !s3_object_name_ok(e->bucket, e->key) || !printable(e->endpoint) ||
	    !printable(e->content_type))
		goto out;
	p++;
	errno = 0;
	n = strtoull(length, &stop, 10);
	if (errno || *stop || !*length || n != (unsigned long long)(end - p))
		goto out;
	s3_sha256_hex(p, n, hex);
	if (strcmp(hex, sha) != 0)
		goto out;
	e->len = n;
	if ((e->body = malloc(n + 1)) == NULL)
		goto out;
	memcpy(e->body, p, n);
	e->body[n] = '\0';
	rc = 0;
out:
	free(length);
	free(sha);
	if (rc < 0)
		s3_spool_entry_free(e);
	return rc;
}

/* The whole file into malloc'd *buf; -1 with errno. */
static int
slurp(const char *path, unsigned long long max, char **buf, size_t *size)
{
	struct stat	st;
	int		fd;
	ssize_t		n;
	size_t		got = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) < 0 || (unsigned long long)st.st_size > max + HEADER_MAX ||
	    (*buf = malloc(st.st_size + 1)) == NULL) {
		close(fd);
		errno = errno ? errno : EFBIG;
		return -1;
	}
	while (got < (size_t)st.st_size && (n = read(fd, *buf + got, st.st_size - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += n;
	}
	close(fd);
	*size = got;
	return 0;
}

int
s3_spool_read(struct s3_spool *sp, const char *name, struct s3_spool_entry *e,
	      char *err, size_t errlen)
{
	char	path[4096], damaged[4096], *buf = NULL;
	size_t	size = 0;
	int	rc;

	memset(e, 0, sizeof(*e));
	snprintf(path, sizeof(path), "%s/%s", sp->dir, name);
	errno = 0;
	if (slurp(path, sp->max_bytes, &buf, &size) < 0) {
		if (errno == ENOENT)
			return -1;
		seterr(err, errlen, "spool entry %s: %s", path, strerror(errno));
		return -2;
	}
	rc = parse_entry(buf, size, e);
	free(buf);
	if (rc == 0)
		return 0;
	snprintf(damaged, sizeof(damaged), "%s/damaged-%s", sp->dir, name);
	lock(sp);
	rc = rename(path, damaged);
	unlock(sp);
	if (rc < 0 && errno == ENOENT)
		return -1;
	seterr(err, errlen, "spool entry %s is damaged (bad header, length or SHA-256); "
	       "kept as %s, not delivered", path, damaged);
	return -2;
}

void
s3_spool_entry_free(struct s3_spool_entry *e)
{
	free(e->endpoint);
	free(e->bucket);
	free(e->key);
	free(e->content_type);
	free(e->body);
	memset(e, 0, sizeof(*e));
}

bool
s3_spool_find(struct s3_spool *sp, const char *endpoint, const char *bucket, const char *key,
	      struct s3_spool_entry *e)
{
	char	hash[HASH_CHARS + 1], **names, err[256];
	size_t	n, i;
	bool	found = false;

	key_hash(endpoint, bucket, key, hash);
	if (list_matching(sp, hash, &names, &n) < 0)
		return false;
	/* newest first; the hash could collide, so compare the names inside */
	for (i = n; i-- > 0 && !found;) {
		struct s3_spool_entry tmp;

		if (s3_spool_read(sp, names[i], &tmp, err, sizeof(err)) != 0)
			continue;
		found = strcmp(tmp.endpoint, endpoint) == 0 && strcmp(tmp.bucket, bucket) == 0 &&
			strcmp(tmp.key, key) == 0;
		if (found && e)
			*e = tmp;
		else
			s3_spool_entry_free(&tmp);
	}
	s3_spool_names_free(names, n);
	return found;
}
