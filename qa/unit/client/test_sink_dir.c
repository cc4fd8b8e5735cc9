/*
 * test_sink_dir.c - safe names and the directory sink: hostile names never
 * leave DIR, symlinks planted inside DIR are not followed, writes replace
 * whole files and leave no temporary files behind.  Staged objects are
 * seen only once committed, and leave nothing when aborted; a sink
 * without stages of its own gets them by holding the bytes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "unit.h"
#include "publish/sink.h"

/* The sink's linkat is this one (the program's own symbol comes first):
 * with no_links set it fails as on a file system without hard links. */
static int no_links;

int
linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)
{
	if (no_links) {
		errno = EPERM;
		return -1;
	}
	return (int)syscall(SYS_linkat, olddirfd, oldpath, newdirfd, newpath, flags);
}

static void
test_safe_name(void)
{
	char	a[128], b[128], tiny[4];
	char	longa[400], longb[400];

	sink_safe_name("java", a, sizeof(a));
	CHECK_STR(a, "java");
	sink_safe_name("../../etc/x", a, sizeof(a));
	CHECK_STR(a, "_._.._etc_x");
	sink_safe_name("..", a, sizeof(a));
	CHECK_STR(a, "_.");
	sink_safe_name("", a, sizeof(a));
	CHECK_STR(a, "_");
	sink_safe_name("a b\tc\nd\x7f", a, sizeof(a));
	CHECK_STR(a, "a_b_c_d_");
	sink_safe_name("<img src=x onerror=alert(1)>", a, sizeof(a));
	CHECK_STR(a, "_img_src=x_onerror=alert_1__");
	sink_safe_name("caf\xc3\xa9", a, sizeof(a));
	CHECK_STR(a, "caf__");

	/* long names are cut, and stay distinct by a hash of the whole */
	memset(longa, 'x', sizeof(longa) - 1);
	longa[sizeof(longa) - 1] = '\0';
	memcpy(longb, longa, sizeof(longb));
	longb[350] = 'y';
	sink_safe_name(longa, a, sizeof(a));
	sink_safe_name(longb, b, sizeof(b));
	CHECK(strlen(a) <= 100);
	CHECK(strlen(b) <= 100);
	CHECK(strcmp(a, b) != 0);
	CHECK(strchr(a, '/') == NULL);
	sink_safe_name(longa, tiny, sizeof(tiny));
	CHECK_INT(strlen(tiny), 3);
}

static int
count_entries(const char *dir)
{
	DIR		*d = opendir(dir);
	struct dirent	*e;
	int		n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void
test_dir_sink(void)
{
	char		base[] = "/tmp/test_sink_dir.XXXXXX", path[512], err[256];
	char		*data = NULL;
	size_t		len = 0;
	struct sink	*s;
	struct stat	st;

	CHECK(mkdtemp(base) != NULL);
	snprintf(path, sizeof(path), "%s/site/new", base);
	s = sink_open(path, NULL, err, sizeof(err));
	CHECK(s != NULL);
	if (s == NULL)
		return;
	CHECK_INT(sink_put(s, "host/java/latest.svg", "image/svg+xml", "<svg/>", 6,
			   err, sizeof(err)), 0);
	CHECK_INT(sink_put(s, "host/java/latest.svg", "image/svg+xml", "<svg>2</svg>", 12,
			   err, sizeof(err)), 0);
	CHECK_INT(sink_get(s, "host/java/latest.svg", &data, &len), 0);
	CHECK_INT(len, 12);
	CHECK_STR(data, "<svg>2</svg>");
	free(data);
	snprintf(path, sizeof(path), "%s/site/new/host/java", base);
	CHECK_INT(count_entries(path), 1);	/* no temporary files left */

	/* latest as a second name of the file just put; a later put of the
	 * stem replaces the stem's file, not the latest one */
	CHECK_INT(sink_put(s, "host/java/a.svg", "image/svg+xml", "<a/>", 4, err, sizeof(err)), 0);
	CHECK_INT(sink_put_copy(s, "host/java/a.svg", "host/java/latest.svg", "image/svg+xml",
				"<a/>", 4, err, sizeof(err)), 0);
	CHECK_INT(sink_get(s, "host/java/latest.svg", &data, &len), 0);
	CHECK_STR(data, "<a/>");
	free(data);
	snprintf(path, sizeof(path), "%s/site/new/host/java/latest.svg", base);
	CHECK(stat(path, &st) == 0 && st.st_nlink == 2);
	CHECK_INT(sink_put(s, "host/java/a.svg", "image/svg+xml", "<b/>", 4, err, sizeof(err)), 0);
	CHECK_INT(sink_get(s, "host/java/latest.svg", &data, &len), 0);
	CHECK_STR(data, "<a/>");
	free(data);
	/* nothing to link from: the bytes are put */
	CHECK_INT(sink_put_copy(s, "host/java/none.svg", "host/java/latest.svg", "image/svg+xml",
				"<c/>", 4, err, sizeof(err)), 0);
	CHECK_INT(sink_get(s, "host/java/latest.svg", &data, &len), 0);
	CHECK_STR(data, "<c/>");
	free(data);
	snprintf(path, sizeof(path), "%s/site/new/host/java", base);
	CHECK_INT(count_entries(path), 2);	/* a.svg, latest.svg: no temporary files */

	/* relpaths that could climb out are refused, not cleaned */
	CHECK_INT(sink_put(s, "../escape", "text/plain", "x", 1, err, sizeof(err)), -1);
	CHECK(strstr(err, "../escape") != NULL);
	CHECK_INT(sink_put(s, "a/../../escape", "text/plain", "x", 1, err, sizeof(err)), -1);
	CHECK_INT(sink_put(s, "/abs", "text/plain", "x", 1, err, sizeof(err)), -1);
	CHECK_INT(sink_put(s, "a//b", "text/plain", "x", 1, err, sizeof(err)), -1);
	snprintf(path, sizeof(path), "%s/site/escape", base);
	CHECK(stat(path, &st) < 0);
	snprintf(path, sizeof(path), "%s/escape", base);
	CHECK(stat(path, &st) < 0);

	/* a symlink inside DIR pointing out of it is not followed */
	snprintf(path, sizeof(path), "%s/site/new/evil", base);
	CHECK_INT(symlink(base, path), 0);
	CHECK_INT(sink_put(s, "evil/planted", "text/plain", "x", 1, err, sizeof(err)), -1);
	snprintf(path, sizeof(path), "%s/planted", base);
	CHECK(stat(path, &st) < 0);
	CHECK_INT(sink_put(s, "evil", "text/plain", "x", 1, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/site/new/evil", base);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));	/* replaced, not followed */
	sink_close(s);

	/* a file where DIR should be: a clear error at open */
	snprintf(path, sizeof(path), "%s/site/new/host/java/latest.svg", base);
	CHECK(sink_open(path, NULL, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "latest.svg") != NULL);

	snprintf(path, sizeof(path), "rm -rf %s", base);
	CHECK_INT(system(path), 0);
}

static void
test_dir_stages(void)
{
	char			base[] = "/tmp/test_sink_stage.XXXXXX", path[512], err[256];
	char			*data = NULL;
	size_t			len = 0;
	struct sink		*s;
	struct sink_stage	*st, *gone;
	struct stat		sb;

	CHECK(mkdtemp(base) != NULL);
	if ((s = sink_open(base, NULL, err, sizeof(err))) == NULL) {
		CHECK(s != NULL);
		return;
	}
	CHECK_INT(sink_put(s, "h/p/latest.json", "application/json", "old", 3, err, sizeof(err)), 0);
	st = sink_stage_open(s, "h/p/a.json", "application/json", err, sizeof(err));
	gone = sink_stage_open(s, "h/p/b.json", "application/json", err, sizeof(err));
	CHECK(st != NULL && gone != NULL);
	if (st == NULL || gone == NULL)
		return;
	CHECK_INT(sink_stage_write(st, "{\"a\":", 5), 0);
	CHECK_INT(sink_stage_write(st, "1}", 2), 0);
	CHECK_INT(sink_stage_write(gone, "half", 4), 0);
	CHECK_INT(sink_stage_end(st, err, sizeof(err)), 0);
	/* ended, not committed: the old object, and no new name */
	CHECK_INT(sink_get(s, "h/p/a.json", &data, &len), -1);
	CHECK_INT(sink_get(s, "h/p/latest.json", &data, &len), 0);
	CHECK_STR(data, "old");
	free(data);
	CHECK_INT(sink_stage_commit(st, "h/p/latest.json", err, sizeof(err)), 0);
	CHECK_INT(sink_get(s, "h/p/latest.json", &data, &len), 0);
	CHECK_STR(data, "{\"a\":1}");
	free(data);
	snprintf(path, sizeof(path), "%s/h/p/a.json", base);
	CHECK(stat(path, &sb) == 0 && sb.st_nlink == 2);	/* latest: a link */
	sink_stage_abort(gone);
	sink_stage_abort(NULL);
	snprintf(path, sizeof(path), "%s/h/p", base);
	CHECK_INT(count_entries(path), 2);	/* a.json, latest.json: no b, no temporaries */

	/* no hard links here: latest is a copy of the committed file's bytes */
	no_links = 1;
	st = sink_stage_open(s, "h/p/c.json", "application/json", err, sizeof(err));
	CHECK(st != NULL);
	if (st != NULL) {
		CHECK_INT(sink_stage_write(st, "[2]", 3), 0);
		CHECK_INT(sink_stage_end(st, err, sizeof(err)), 0);
		CHECK_INT(sink_stage_commit(st, "h/p/latest.json", err, sizeof(err)), 0);
	}
	no_links = 0;
	CHECK_INT(sink_get(s, "h/p/latest.json", &data, &len), 0);
	CHECK_STR(data, "[2]");
	free(data);
	snprintf(path, sizeof(path), "%s/h/p/latest.json", base);
	CHECK(stat(path, &sb) == 0 && sb.st_nlink == 1);
	snprintf(path, sizeof(path), "%s/h/p", base);
	CHECK_INT(count_entries(path), 3);	/* a, c, latest */

	/* a hostile name is refused at open, before any byte */
	CHECK(sink_stage_open(s, "../out", "text/plain", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "../out") != NULL);
	sink_close(s);
	snprintf(path, sizeof(path), "rm -rf %s", base);
	CHECK_INT(system(path), 0);
}

/* A sink with a put and nothing else, as the S3 sink is. */
struct put_only {
	struct sink	base;
	char		last[64], data[64];
	int		puts;
};

static int
put_only_put(struct sink *s, const char *relpath, const char *content_type,
	     const void *data, size_t len, char *err, size_t errlen)
{
	struct put_only	*p = (struct put_only *)s;

	(void)content_type;
	(void)err;
	(void)errlen;
	p->puts++;
	snprintf(p->last, sizeof(p->last), "%s", relpath);
	snprintf(p->data, sizeof(p->data), "%.*s", (int)len, (const char *)data);
	return 0;
}

static void
test_held_stages(void)
{
	static const struct sink_ops	ops = { .put = put_only_put };
	struct put_only			p = { .base = { &ops, (char *)"mem" } };
	struct sink_stage		*st;
	char				err[128];

	st = sink_stage_open(&p.base, "h/p/a.svg", "image/svg+xml", err, sizeof(err));
	CHECK(st != NULL);
	if (st == NULL)
		return;
	CHECK_INT(sink_stage_write(st, "<svg", 4), 0);
	CHECK_INT(sink_stage_write(st, "/>", 2), 0);
	CHECK_INT(sink_stage_end(st, err, sizeof(err)), 0);
	CHECK_INT(p.puts, 0);			/* nothing seen before the commit */
	CHECK_INT(sink_stage_commit(st, "h/p/latest.svg", err, sizeof(err)), 0);
	CHECK_INT(p.puts, 2);			/* the object, then its copy */
	CHECK_STR(p.last, "h/p/latest.svg");
	CHECK_STR(p.data, "<svg/>");
	st = sink_stage_open(&p.base, "h/p/b.svg", "image/svg+xml", err, sizeof(err));
	CHECK_INT(sink_stage_write(st, "x", 1), 0);
	sink_stage_abort(st);
	CHECK_INT(p.puts, 2);
}

static void
test_s3_dispatch(void)
{
	char		err[256] = "";
	struct sink	*s = sink_open("s3://bucket/prefix/", NULL, err, sizeof(err));

	/* without branch s3 this is the stand-in; with it, a real sink or a
	 * configuration error: either way it is not treated as a directory */
	if (s != NULL)
		sink_close(s);
	else
		CHECK(err[0] != '\0');
	CHECK(access("s3:", F_OK) != 0);
}

int
main(void)
{
	test_safe_name();
	test_dir_sink();
	test_dir_stages();
	test_held_stages();
	test_s3_dispatch();
	return unit_report("test_sink_dir");
}
