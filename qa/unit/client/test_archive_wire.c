/*
 * test_archive_wire.c - what crosses the pipe from an isolated archive
 * reader: every consumer call arrives as it was made (strings, NULLs,
 * heat map values, gaps); a stream cut anywhere replays its whole
 * messages only; a crash message carries the signal and the volume; a
 * window a crashed reader began is not begun again by its successor, and
 * its end is widened to the records both handed over; garbage never
 * crashes the reader.  Also the archive's files: which volumes exist,
 * and which one a process has open.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "source/archive_volumes.h"
#include "source/archive_wire.h"
#include "common/membuf.h"

/* A consumer that writes each call it gets as one line. */
static struct membuf	log_;

static int
l_sample(void *arg, const struct stack_sample *s)
{
	membuf_printf(&log_, "%s %s|%s|%s|%s|%s|%u.%u|%u|%llu|%llu|%.6f\n", (char *)arg, s->host,
		      s->process, s->thread ? s->thread : "(null)", s->stack,
		      s->event ? s->event : "(null)", s->pid, s->gen, s->tid,
		      (unsigned long long)s->count, (unsigned long long)s->value_us, s->time);
	return 0;
}

static int
l_near(void *arg, const struct stack_sample *s)
{
	(void)arg;
	return l_sample("near", s);
}

static int
l_begin(void *arg, const struct window *w)
{
	(void)arg;
	membuf_printf(&log_, "begin %s %.3f %.3f\n", w->host, w->start, w->end);
	return 0;
}

static int
l_end(void *arg, const struct window *w)
{
	(void)arg;
	membuf_printf(&log_, "end %s %.3f %.3f\n", w->host, w->start, w->end);
	return 0;
}

static int
l_counters(void *arg, const struct heat_counters *c)
{
	unsigned	i;

	(void)arg;
	membuf_printf(&log_, "counters %s %.3f %.3f %d", c->host, c->time, c->drain, c->restart);
	for (i = 0; i < c->n; i++)
		membuf_printf(&log_, " %llu", (unsigned long long)c->values[i]);
	membuf_puts(&log_, "\n");
	return 0;
}

static int
l_gap(void *arg, const struct data_gap *g)
{
	(void)arg;
	membuf_printf(&log_, "gap %s %.3f %.3f %s\n", g->host, g->start, g->end, g->why);
	return 0;
}

static const struct source_consumer logger = {
	.sample = l_sample, .begin = l_begin, .end = l_end, .counters = l_counters,
	.near = l_near, .gap = l_gap, .arg = "sample",
};

/* Everything a reader may send, into fd. */
static void
send_all(int fd, int done)
{
	struct wire_writer	w;
	struct source_consumer	c;
	struct window		win = { "web1", 100, 200 };
	uint64_t		v[4] = { 1, 2, UINT64_MAX, 0 };
	struct heat_counters	hc = { "web1", 150.5, v, 4, 0.5, true };
	struct stack_sample	s = { "web1", "java", NULL, "main;work", "on-cpu", 7, 8,
				      3, 30303, 150.25, 2, NULL };
	struct data_gap		g = { "web1", 160, 170, "partial: archive x volume 2" };
	struct archive_progress	p = { 3, false, "/a/b.", 150.25 };

	CHECK_INT(wire_writer_init(&w, fd), 0);
	c = wire_consumer(&w, &logger);
	CHECK(c.counters != NULL && c.near != NULL);
	CHECK_INT(c.begin(c.arg, &win), 0);
	CHECK_INT(c.counters(c.arg, &hc), 0);
	CHECK_INT(c.sample(c.arg, &s), 0);
	s.thread = "t1";
	s.event = NULL;
	s.time = 99;
	CHECK_INT(c.near(c.arg, &s), 0);
	CHECK_INT(c.gap(c.arg, &g), 0);
	CHECK_INT(wire_progress(&w, &p), 0);
	if (done) {
		CHECK_INT(c.end(c.arg, &win), 0);
		CHECK_INT(wire_done(&w, 1, "fine"), 0);
	} else
		wire_crash_sigsafe(&w, SIGSEGV, 2);
	wire_writer_free(&w);
}

static const char *const replayed =
	"begin web1 100.000 200.000\n"
	"counters web1 150.500 0.500 1 1 2 18446744073709551615 0\n"
	"sample web1|java|(null)|main;work|on-cpu|7.2|8|3|30303|150.250000\n"
	"near web1|java|t1|main;work|(null)|7.2|8|3|30303|99.000000\n"
	"gap web1 160.000 170.000 partial: archive x volume 2\n";

/* Bytes written by send_all, in a file. */
static int
stream(int done, char *path)
{
	int	fd;

	strcpy(path, "/tmp/test_archive_wire.XXXXXX");
	if ((fd = mkstemp(path)) < 0)
		return -1;
	send_all(fd, done);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static void
test_round_trip(void)
{
	struct wire_window	open = { .is_open = 0 };
	struct wire_outcome	out;
	char			path[64], want[1024];
	int			fd = stream(1, path);

	membuf_init(&log_);
	CHECK(fd >= 0);
	CHECK_INT(wire_replay(fd, &logger, &open, &out), 0);
	snprintf(want, sizeof(want), "%send web1 100.000 200.000\n", replayed);
	CHECK_STR(log_.data, want);
	CHECK_INT(out.done, 1);
	CHECK_INT(out.status, 1);
	CHECK_STR(out.err, "fine");
	CHECK_INT(out.crash_signal, 0);
	CHECK_INT(out.where.order, 3);
	CHECK(out.where.t == 150.25 && !out.where.opening);
	CHECK_INT(open.is_open, 0);
	close(fd);
	unlink(path);
	membuf_free(&log_);
}

/* A reader that died: its window stays open; the successor's begin of it is
 * not passed on, and its end covers the records of both. */
static void
test_crash_and_successor(void)
{
	struct wire_window	open = { .is_open = 0 };
	struct wire_outcome	out;
	char			path[64];
	int			fd = stream(0, path);

	membuf_init(&log_);
	CHECK_INT(wire_replay(fd, &logger, &open, &out), 0);
	CHECK_STR(log_.data, replayed);
	CHECK_INT(out.done, 0);
	CHECK_INT(out.crash_signal, SIGSEGV);
	CHECK_INT(out.crash_volume, 2);
	CHECK_INT(open.is_open, 1);
	close(fd);
	unlink(path);

	/* the successor begins web1 again, hands over a record, ends it */
	{
		struct wire_writer	w;
		struct source_consumer	c;
		struct window		win = { "web1", 100, 200 };
		struct stack_sample	s = { "web1", "java", NULL, "main", "on-cpu", 1, 1, 1, 1,
					      250, 0, NULL };

		strcpy(path, "/tmp/test_archive_wire.XXXXXX");
		fd = mkstemp(path);
		CHECK_INT(wire_writer_init(&w, fd), 0);
		c = wire_consumer(&w, &logger);
		c.begin(c.arg, &win);
		c.sample(c.arg, &s);
		c.end(c.arg, &win);
		wire_done(&w, 0, "");
		wire_writer_free(&w);
		lseek(fd, 0, SEEK_SET);
	}
	membuf_reset(&log_);
	CHECK_INT(wire_replay(fd, &logger, &open, &out), 0);
	/* no second begin; the end widened from the first reader's 150.25 to 250 */
	CHECK_STR(log_.data, "sample web1|java|(null)|main|on-cpu|1.0|1|1|1|250.000000\n"
			     "end web1 100.000 250.000\n");
	CHECK_INT(out.done, 1);
	close(fd);
	unlink(path);
	membuf_free(&log_);
}

/* Cut anywhere, a stream replays whole messages only; garbage is survived. */
static void
test_cut_and_garbage(void)
{
	struct wire_window	open;
	struct wire_outcome	out;
	char			path[64], buf[4096];
	int			fd = stream(1, path), cutfd;
	ssize_t			n = read(fd, buf, sizeof(buf)), k;
	size_t			prev_len = 0;
	int			monotone = 1, i;

	CHECK(n > 100);
	for (k = 0; k <= n; k++) {
		int	p[2];

		if (pipe(p) < 0 || write(p[1], buf, (size_t)k) != k)
			break;
		close(p[1]);
		cutfd = p[0];
		memset(&open, 0, sizeof(open));
		membuf_init(&log_);
		CHECK_INT(wire_replay(cutfd, &logger, &open, &out), 0);
		/* what is replayed only grows with the bytes, a whole line at a time */
		if (log_.len < prev_len || (log_.len > 0 && log_.data[log_.len - 1] != '\n'))
			monotone = 0;
		prev_len = log_.len;
		CHECK(k == n || out.done == 0);
		close(cutfd);
		membuf_free(&log_);
	}
	CHECK(monotone);
	CHECK_INT(prev_len, strlen(replayed) + strlen("end web1 100.000 200.000\n"));
	/* flipped bytes: anything may be replayed, nothing may crash */
	srand(7);
	for (i = 0; i < 2000; i++) {
		char	bad[4096];
		int	p[2];

		memcpy(bad, buf, (size_t)n);
		bad[rand() % n] ^= (char)(1 << (rand() % 8));
		bad[rand() % n] ^= (char)(1 << (rand() % 8));
		if (pipe(p) < 0 || write(p[1], bad, (size_t)n) != n)
			break;
		close(p[1]);
		memset(&open, 0, sizeof(open));
		membuf_init(&log_);
		wire_replay(p[0], &logger, &open, &out);
		close(p[0]);
		membuf_free(&log_);
	}
	CHECK_INT(i, 2000);
	close(fd);
	unlink(path);
}

static void
touch(const char *dir, const char *name)
{
	char	path[256];
	int	fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0);
	close(fd);
}

/* Volumes found by number whatever the name given; open ones seen. */
static void
test_volumes(void)
{
	char			dir[] = "/tmp/test_archive_vol.XXXXXX", path[512], links[256];
	struct archive_files	f;
	const char		*names[] = { "a.meta", "a.index", "a.0", "a.10.xz", "a.2",
					     "a.x", "ab.1", "a.meta.1", "b.3" };
	size_t			i;
	int			fd;
	glob_t			left;

	CHECK(mkdtemp(dir) != NULL);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		touch(dir, names[i]);
	snprintf(path, sizeof(path), "%s/a.2", dir);
	CHECK_INT(archive_files_find(path, &f), 0);
	CHECK_STR(f.base, "a");
	CHECK_STR(f.meta, "a.meta");
	CHECK_INT(f.nvol, 3);
	CHECK(f.nvol == 3 && f.vol[0] == 0 && f.vol[1] == 2 && f.vol[2] == 10);
	CHECK(f.nvol == 3 && strcmp(f.volname[2], "a.10.xz") == 0);
	CHECK_INT(archive_volume_next(&f, 0), 2);
	CHECK_INT(archive_volume_next(&f, 2), 10);
	CHECK_INT(archive_volume_next(&f, 10), -1);
	CHECK_INT(archive_volume_open(&f), -1);
	snprintf(path, sizeof(path), "%s/a.10.xz", dir);
	fd = open(path, O_RDONLY);
	CHECK_INT(archive_volume_open(&f), 10);
	close(fd);
	archive_files_free(&f);
	/* the other names of the same archive */
	snprintf(path, sizeof(path), "%s/a", dir);
	CHECK_INT(archive_files_find(path, &f), 0);
	CHECK_INT(f.nvol, 3);
	archive_files_free(&f);
	snprintf(path, sizeof(path), "%s/a.meta", dir);
	CHECK_INT(archive_files_find(path, &f), 0);
	CHECK_INT(f.nvol, 3);
	/* a context over volumes 2 on cannot be read (empty files), but the links
	 * are made and removed */
	CHECK(archive_open_from(&f, 2, -1, dir, links, sizeof(links)) < 0);
	snprintf(path, sizeof(path), "%s/a.0", links);
	CHECK(access(path, F_OK) < 0);
	snprintf(path, sizeof(path), "%s/a.10.xz", links);
	CHECK(access(path, F_OK) == 0);
	archive_links_remove(links);
	CHECK(access(links, F_OK) < 0);
	/* up to the volume before 10 only */
	CHECK(archive_open_from(&f, 0, 10, dir, links, sizeof(links)) < 0);
	snprintf(path, sizeof(path), "%s/a.2", links);
	CHECK(access(path, F_OK) == 0);
	snprintf(path, sizeof(path), "%s/a.10.xz", links);
	CHECK(access(path, F_OK) < 0);
	archive_links_remove(links);
	/* no first volumes open (empty files): no context, no links left */
	CHECK_INT(archive_open_head(&f, dir, links, sizeof(links), &fd), -1);
	CHECK_STR(links, "");
	snprintf(path, sizeof(path), "%s/volumes.*", dir);
	CHECK(glob(path, 0, NULL, &left) == GLOB_NOMATCH);
	archive_files_free(&f);
	/* no archive there, a directory, a list of archives */
	snprintf(path, sizeof(path), "%s/b", dir);
	CHECK_INT(archive_files_find(path, &f), -1);
	CHECK_INT(archive_files_find(dir, &f), -1);
	snprintf(path, sizeof(path), "%s/a,%s/b", dir, dir);
	CHECK_INT(archive_files_find(path, &f), -1);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int
main(void)
{
	test_round_trip();
	test_crash_and_successor();
	test_cut_and_garbage();
	test_volumes();
	return unit_report("test_archive_wire");
}
