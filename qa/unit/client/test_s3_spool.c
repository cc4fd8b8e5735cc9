/*
 * test_s3_spool.c - the spool of undelivered S3 objects keeps every byte,
 * gives entries back oldest first, keeps one version per key, refuses
 * loudly past its limits, and ignores what a crash left half-written.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "publish/s3_spool.h"
#include "unit.h"

static char root[] = "/tmp/test_s3_spool.XXXXXX";

static void
open_spool(struct s3_spool *sp, const char *name)
{
	char dir[512], err[512];

	snprintf(dir, sizeof(dir), "%s/%s", root, name);
	setenv("PMFLAME_SPOOL", dir, 1);
	if (s3_spool_open(sp, err, sizeof(err)) < 0) {
		fprintf(stderr, "cannot open spool: %s\n", err);
		exit(1);
	}
}

static int
add(struct s3_spool *sp, const char *key, const char *body)
{
	char err[1024];

	return s3_spool_add(sp, "aws", "bkt", key, "text/plain; charset=utf-8", body, strlen(body),
			    err, sizeof(err));
}

static unsigned long
entries(struct s3_spool *sp)
{
	unsigned long long	bytes;
	unsigned long		files;

	s3_spool_usage(sp, &bytes, &files);
	return files;
}

static void
test_round_trip_and_order(void)
{
	struct s3_spool		sp;
	struct s3_spool_entry	e;
	char			**names, err[512], body[300];
	size_t			n, i;

	open_spool(&sp, "order");
	for (i = 0; i < sizeof(body); i++)
		body[i] = (char)i;	/* every byte value, NULs included */
	CHECK_INT(s3_spool_add(&sp, "aws", "bkt", "p/bin.folded", "application/octet-stream",
			       body, sizeof(body), err, sizeof(err)), 0);
	CHECK_INT(add(&sp, "p/b.svg", "second"), 0);
	CHECK_INT(add(&sp, "p/c.json", "third"), 0);
	CHECK_INT(s3_spool_list(&sp, &names, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_INT(s3_spool_read(&sp, names[0], &e, err, sizeof(err)), 0);
		CHECK_STR(e.bucket, "bkt");
		CHECK_STR(e.key, "p/bin.folded");
		CHECK_STR(e.content_type, "application/octet-stream");
		CHECK_INT(e.len, sizeof(body));
		CHECK(e.body && memcmp(e.body, body, sizeof(body)) == 0);
		s3_spool_entry_free(&e);
		CHECK_INT(s3_spool_read(&sp, names[1], &e, err, sizeof(err)), 0);
		CHECK_STR(e.key, "p/b.svg");
		CHECK_STR(e.body, "second");
		s3_spool_entry_free(&e);
		CHECK_INT(s3_spool_read(&sp, names[2], &e, err, sizeof(err)), 0);
		CHECK_STR(e.key, "p/c.json");
		s3_spool_entry_free(&e);
		/* delivered: removing twice is fine, reading it again says "gone" */
		CHECK_INT(s3_spool_remove(&sp, names[0]), 0);
		CHECK_INT(s3_spool_remove(&sp, names[0]), 0);
		CHECK_INT(s3_spool_read(&sp, names[0], &e, err, sizeof(err)), -1);
	}
	s3_spool_names_free(names, n);
	CHECK_INT(entries(&sp), 2);

	/* a name that is not ours is no entry */
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/README", sp.dir);
		close(open(path, O_CREAT | O_WRONLY, 0600));
		CHECK_INT(entries(&sp), 2);
	}
	s3_spool_close(&sp);
}

static void
test_one_version_per_key(void)
{
	struct s3_spool		sp;
	struct s3_spool_entry	e;

	open_spool(&sp, "versions");
	CHECK_INT(add(&sp, "p/index.json", "v1"), 0);
	CHECK_INT(add(&sp, "p/other.json", "other"), 0);
	CHECK_INT(add(&sp, "p/index.json", "v2"), 0);
	CHECK_INT(add(&sp, "p/index.json", "v3"), 0);
	CHECK_INT(entries(&sp), 2);
	CHECK(s3_spool_find(&sp, "aws", "bkt", "p/index.json", &e));
	CHECK_STR(e.body, "v3");
	s3_spool_entry_free(&e);
	CHECK(s3_spool_find(&sp, "aws", "bkt", "p/other.json", NULL));
	CHECK(!s3_spool_find(&sp, "aws", "bkt", "p/none.json", NULL));
	CHECK(!s3_spool_find(&sp, "aws", "other-bucket", "p/index.json", NULL));

	/* the same bucket and key on another server is another object */
	{
		char err[512];

		CHECK_INT(s3_spool_add(&sp, "http://127.0.0.1:9000", "bkt", "p/index.json",
				       "application/json", "minio", 5, err, sizeof(err)), 0);
	}
	CHECK_INT(entries(&sp), 3);
	CHECK(s3_spool_find(&sp, "http://127.0.0.1:9000", "bkt", "p/index.json", &e));
	CHECK_STR(e.endpoint, "http://127.0.0.1:9000");
	CHECK_STR(e.body, "minio");
	s3_spool_entry_free(&e);
	CHECK(s3_spool_find(&sp, "aws", "bkt", "p/index.json", &e));
	CHECK_STR(e.endpoint, "aws");
	CHECK_STR(e.body, "v3");
	s3_spool_entry_free(&e);
	CHECK(!s3_spool_find(&sp, "http://other", "bkt", "p/other.json", NULL));
	s3_spool_close(&sp);
}

static void
test_limits(void)
{
	struct s3_spool	sp;
	char		err[1024], big[2048];

	setenv("PMFLAME_SPOOL_MAX_FILES", "3", 1);
	open_spool(&sp, "limits-files");
	CHECK_INT(add(&sp, "a", "1"), 0);
	CHECK_INT(add(&sp, "b", "2"), 0);
	CHECK_INT(add(&sp, "c", "3"), 0);
	CHECK_INT(s3_spool_add(&sp, "aws", "bkt", "d", "text/plain", "4", 1, err, sizeof(err)), -1);
	CHECK(strstr(err, "SPOOL FULL") != NULL);
	CHECK(strstr(err, "s3://bkt/d") != NULL);
	CHECK(strstr(err, "NOT saved") != NULL);
	CHECK(strstr(err, "PMFLAME_SPOOL_MAX_FILES") != NULL);
	CHECK_INT(entries(&sp), 3);			/* nothing already there is lost */
	CHECK_INT(add(&sp, "b", "2 again"), 0);		/* a new version replaces, so it fits */
	CHECK_INT(entries(&sp), 3);
	s3_spool_close(&sp);
	unsetenv("PMFLAME_SPOOL_MAX_FILES");

	setenv("PMFLAME_SPOOL_MAX_BYTES", "4k", 1);
	open_spool(&sp, "limits-bytes");
	CHECK_INT(sp.max_bytes, 4096);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_INT(add(&sp, "one", big), 0);
	CHECK_INT(s3_spool_add(&sp, "aws", "bkt", "two", "text/plain", big, strlen(big), err, sizeof(err)), -1);
	CHECK(strstr(err, "SPOOL FULL") != NULL);
	CHECK(strstr(err, "PMFLAME_SPOOL_MAX_BYTES") != NULL);
	CHECK_INT(add(&sp, "small", "fits"), 0);
	s3_spool_close(&sp);

	setenv("PMFLAME_SPOOL_MAX_BYTES", "12x", 1);
	CHECK_INT(s3_spool_open(&sp, err, sizeof(err)), -1);
	CHECK(strstr(err, "PMFLAME_SPOOL_MAX_BYTES") != NULL);
	setenv("PMFLAME_SPOOL_MAX_BYTES", "-5", 1);
	CHECK_INT(s3_spool_open(&sp, err, sizeof(err)), -1);
	unsetenv("PMFLAME_SPOOL_MAX_BYTES");
}

static void
write_raw(const char *dir, const char *name, const char *text, time_t age)
{
	char		path[512];
	FILE		*f;
	struct timespec	ts[2];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) == NULL)
		return;
	fputs(text, f);
	fclose(f);
	if (age) {
		clock_gettime(CLOCK_REALTIME, &ts[0]);
		ts[0].tv_sec -= age;
		ts[1] = ts[0];
		utimensat(AT_FDCWD, path, ts, 0);
	}
}

static int
exists(const char *dir, const char *name)
{
	char		path[512];
	struct stat	st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

static void
test_crash_leftovers(void)
{
	struct s3_spool		sp;
	struct s3_spool_entry	e;
	char			**names, err[1024], dir[512];
	size_t			n;
	const char		*half = "pmflame-spool 1\nendpoint: aws\nbucket: bkt\nkey: p/half.svg\ncontent-type: image/svg+xml\nlength: 5000\nsha256: ";

	open_spool(&sp, "crash");
	snprintf(dir, sizeof(dir), "%s", sp.dir);
	CHECK_INT(add(&sp, "p/good.svg", "<svg/>"), 0);
	/* a writer died mid-write: its temp file is never an entry */
	write_raw(dir, ".tmp-00000000000000000001-99-0-0123456789abcdef.obj", half, 0);
	write_raw(dir, ".tmp-00000000000000000002-99-0-0123456789abcdef.obj", half, 3600);
	CHECK_INT(s3_spool_list(&sp, &names, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 1);
	s3_spool_names_free(names, n);
	s3_spool_close(&sp);

	/* the next run removes the stale temp file, keeps the fresh one (its
	 * writer may still be at work) and the good entry */
	open_spool(&sp, "crash");
	CHECK(!exists(dir, ".tmp-00000000000000000002-99-0-0123456789abcdef.obj"));
	CHECK(exists(dir, ".tmp-00000000000000000001-99-0-0123456789abcdef.obj"));
	CHECK_INT(entries(&sp), 1);

	/* a complete-looking entry whose body is short or altered is refused,
	 * set aside for a person, and no longer offered for delivery */
	write_raw(dir, "00000000000000000003-99-0-0123456789abcdef.obj", half, 0);
	write_raw(dir, "00000000000000000004-99-0-0123456789abcdef.obj",
		  "pmflame-spool 1\nendpoint: aws\nbucket: bkt\nkey: k\ncontent-type: text/plain\nlength: 3\n"
		  "sha256: 0000000000000000000000000000000000000000000000000000000000000000\n\nabc", 0);
	CHECK_INT(entries(&sp), 3);
	CHECK_INT(s3_spool_read(&sp, "00000000000000000003-99-0-0123456789abcdef.obj", &e,
				err, sizeof(err)), -2);
	CHECK(strstr(err, "damaged") != NULL);
	CHECK_INT(s3_spool_read(&sp, "00000000000000000004-99-0-0123456789abcdef.obj", &e,
				err, sizeof(err)), -2);
	CHECK(exists(dir, "damaged-00000000000000000004-99-0-0123456789abcdef.obj"));
	/* sound length and checksum, but a key no sink would make: not sent */
	write_raw(dir, "00000000000000000005-99-0-0123456789abcdef.obj",
		  "pmflame-spool 1\nendpoint: aws\nbucket: bkt\nkey: ../../x\ncontent-type: text/plain\n"
		  "length: 3\nsha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n\nabc", 0);
	CHECK_INT(s3_spool_read(&sp, "00000000000000000005-99-0-0123456789abcdef.obj", &e,
				err, sizeof(err)), -2);
	write_raw(dir, "00000000000000000006-99-0-0123456789abcdef.obj",
		  "pmflame-spool 1\nendpoint: aws\nbucket: Bad/Bucket\nkey: x\ncontent-type: text/plain\n"
		  "length: 3\nsha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n\nabc", 0);
	CHECK_INT(s3_spool_read(&sp, "00000000000000000006-99-0-0123456789abcdef.obj", &e,
				err, sizeof(err)), -2);
	/* the same, sound: accepted (the checks above are not over-eager) */
	write_raw(dir, "00000000000000000007-99-0-0123456789abcdef.obj",
		  "pmflame-spool 1\nendpoint: aws\nbucket: bkt\nkey: x\ncontent-type: text/plain\n"
		  "length: 3\nsha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n\nabc", 0);
	CHECK_INT(s3_spool_read(&sp, "00000000000000000007-99-0-0123456789abcdef.obj", &e,
				err, sizeof(err)), 0);
	CHECK_STR(e.body, "abc");
	s3_spool_entry_free(&e);
	s3_spool_remove(&sp, "00000000000000000007-99-0-0123456789abcdef.obj");
	CHECK_INT(entries(&sp), 1);
	CHECK(s3_spool_find(&sp, "aws", "bkt", "p/good.svg", &e));
	CHECK_STR(e.body, "<svg/>");
	s3_spool_entry_free(&e);
	s3_spool_close(&sp);
}

static void
test_bad_names_and_dirs(void)
{
	struct s3_spool	sp;
	char		err[1024], *d;

	open_spool(&sp, "names");
	CHECK_INT(s3_spool_add(&sp, "aws", "bkt", "a\nb", "text/plain", "x", 1, err, sizeof(err)), -1);
	CHECK(strstr(err, "control characters") != NULL);
	CHECK_INT(entries(&sp), 0);
	s3_spool_close(&sp);

	setenv("PMFLAME_SPOOL", "/proc/version/spool", 1);
	CHECK_INT(s3_spool_open(&sp, err, sizeof(err)), -1);
	CHECK(strstr(err, "PMFLAME_SPOOL") != NULL);

	d = s3_spool_default_dir();
	if (geteuid() == 0)
		CHECK_STR(d, "/var/spool/pmflame");
	else
		CHECK(d && strstr(d, "pmflame/spool") != NULL);
	free(d);
}

static void
test_one_deliverer(void)
{
	struct s3_spool a, b;

	/* two runs sharing a spool: only one delivers at a time */
	open_spool(&a, "shared");
	open_spool(&b, "shared");
	CHECK(s3_spool_flush_begin(&a));
	CHECK(!s3_spool_flush_begin(&b));
	s3_spool_flush_end(&a);
	CHECK(s3_spool_flush_begin(&b));
	s3_spool_flush_end(&b);
	s3_spool_close(&a);
	s3_spool_close(&b);
}

int
main(void)
{
	char cmd[600];

	if (mkdtemp(root) == NULL)
		return 1;
	unsetenv("PMFLAME_SPOOL_MAX_FILES");
	unsetenv("PMFLAME_SPOOL_MAX_BYTES");
	test_round_trip_and_order();
	test_one_version_per_key();
	test_limits();
	test_crash_leftovers();
	test_bad_names_and_dirs();
	test_one_deliverer();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
	return unit_report("test_s3_spool");
}
