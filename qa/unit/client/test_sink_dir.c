/*
 * test_sink_dir.c - safe names and the directory sink: hostile names never
 * leave DIR, symlinks planted inside DIR are not followed, writes replace
 * whole files and leave no temporary files behind.
 */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "publish/sink.h"

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
	test_s3_dispatch();
	return unit_report("test_sink_dir");
}
