/*
 * archive_child.c - archives read in child processes; a crash in libpcp
 * becomes damage to read past (archive_child.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pcp/pmapi.h>
#include "archive_child.h"
#include "archive_volumes.h"
#include "archive_wire.h"

#define MAX_READERS	100	/* children per run: damage enough to give up */

/* ---- the child ---- */

/* What the crash handler reads: the pipe, and the archive being read. */
static struct wire_writer	child_wire;
static char			child_prefix[PATH_MAX + NAME_MAX + 2];

static void
on_crash(int sig)
{
	int	vol = child_prefix[0] ? archive_volume_open_sigsafe(child_prefix) : -1;

	wire_crash_sigsafe(&child_wire, sig, vol);
	raise(sig);		/* SA_RESETHAND: now the default action */
}

/* A crash may come from a stack overflow: handle it on a stack of its own. */
static void
catch_crashes(void)
{
	static char		stack[64 * 1024];
	static const int	sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	stack_t			ss = { .ss_sp = stack, .ss_size = sizeof(stack) };
	struct sigaction	sa = { .sa_handler = on_crash,
				       .sa_flags = SA_RESETHAND | SA_ONSTACK | SA_NODEFER };
	size_t			i;

	sigaltstack(&ss, NULL);
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void
child_progress(void *arg, const struct archive_progress *p)
{
	(void)arg;
	if (p->prefix == NULL)
		child_prefix[0] = '\0';
	else if (strcmp(p->prefix, child_prefix) != 0)
		snprintf(child_prefix, sizeof(child_prefix), "%s", p->prefix);
	wire_progress(&child_wire, p);
}

static void __attribute__((noreturn))
child_main(archive_reader *reader, const struct archive_options *o,
	   const struct source_consumer *c, const struct archive_resume *r, const char *scratch,
	   int fd)
{
	struct archive_options	co = *o;
	struct source_consumer	wc;
	char			err[512] = "";
	int			sts;

	catch_crashes();
	if (wire_writer_init(&child_wire, fd) < 0)
		_exit(2);
	wc = wire_consumer(&child_wire, c);
	co.isolate = false;
	co.resume = r;
	co.scratch = scratch;
	co.progress = child_progress;
	sts = reader(&co, &wc, err, sizeof(err));
	wire_done(&child_wire, sts, err);
	_exit(0);		/* not exit(): pmflame's stdio and atexit are not ours */
}

/* ---- pmflame's side ---- */

/* One child from fork to wait; its calls replayed into c. */
static int
run_child(archive_reader *reader, const struct archive_options *o,
	  const struct source_consumer *c, const struct archive_resume *r, const char *scratch,
	  struct wire_window *open, struct wire_outcome *out, int *wstatus)
{
	int	fds[2], sts;
	pid_t	pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0) {
		sts = -errno;
		close(fds[0]);
		close(fds[1]);
		return sts;
	}
	if (pid == 0) {
		close(fds[0]);
		child_main(reader, o, c, r, scratch, fds[1]);
	}
	close(fds[1]);
	sts = wire_replay(fds[0], c, open, out);
	if (sts < 0)
		kill(pid, SIGKILL);	/* the consumer stopped: so does the reader */
	close(fds[0]);
	while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
		;
	return sts;
}

/* "libpcp crashed (Segmentation fault)" and the like. */
static void
death(const struct wire_outcome *out, int wstatus, char *buf, size_t len)
{
	int	sig = out->crash_signal ? out->crash_signal :
		      WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;

	if (sig)
		snprintf(buf, len, "libpcp crashed (%s)", strsignal(sig));
	else
		snprintf(buf, len, "the archive reader exited with status %d",
			 WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
}

struct readers {
	struct archive_resume	resume;
	int			headonly[MAX_READERS];
	int			unopenable[MAX_READERS];
	char			why[128];
	int			crashes;
};

bool
archive_listed(const int *orders, int n, int order)
{
	for (int i = 0; i < n; i++)
		if (orders[i] == order)
			return true;
	return false;
}

/*
 * A child died at out->where: set up its successor's start.  -1 with err
 * when there is none (nothing opened yet, the volumes before the last
 * crashed it too without --partial, or no progress since the last crash).
 */
static int
successor(const struct archive_options *o, struct readers *rd,
	  const struct wire_outcome *out, int wstatus, char *err, size_t errlen)
{
	struct archive_resume	*r = &rd->resume;
	const char		*path = out->where.order >= 0 && out->where.order < o->narchives ?
					o->archives[out->where.order] : "(none yet)";

	death(out, wstatus, rd->why, sizeof(rd->why));
	if (out->where.order < 0) {
		snprintf(err, errlen, "archive %s: %s before opening it", path, rd->why);
		return -1;
	}
	/* libpcp reads the last volume to find an archive's end: damage
	 * there crashes the open, and the volumes before it may still open */
	if (out->where.opening && !archive_listed(rd->headonly, r->nheadonly, out->where.order)) {
		rd->headonly[r->nheadonly++] = out->where.order;
	} else if (out->where.opening && !o->partial) {
		snprintf(err, errlen, "archive %s: %s opening it (--partial skips it)", path,
			 rd->why);
		return -1;
	} else if (out->where.opening) {
		rd->unopenable[r->nunopenable++] = out->where.order;
	} else if (r->reading && r->order == out->where.order && r->volume == out->crash_volume &&
		 (r->after == out->where.t || (isnan(r->after) && isnan(out->where.t)))) {
		snprintf(err, errlen, "archive %s: %s again at the same place", path, rd->why);
		return -1;
	} else {
		r->reading = true;
		r->order = out->where.order;
		r->volume = out->crash_volume;
		r->after = out->where.t;
	}
	r->headonly = rd->headonly;
	r->unopenable = rd->unopenable;
	r->why = rd->why;
	if (++rd->crashes >= MAX_READERS) {
		snprintf(err, errlen, "archive %s: %s; %d readers crashed, giving up", path,
			 rd->why, rd->crashes);
		return -1;
	}
	return 0;
}

/* A directory for volume links, removed with all of them at the end. */
static int
scratch_make(char *dir, size_t len)
{
	const char	*t = getenv("TMPDIR");

	snprintf(dir, len, "%s/pmflame-archive.XXXXXX", t && t[0] == '/' ? t : "/tmp");
	return mkdtemp(dir) ? 0 : -errno;
}

static void
scratch_remove(const char *dir)
{
	char		path[PATH_MAX + NAME_MAX + 2];
	struct dirent	*e;
	DIR		*d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			archive_links_remove(path);
		}
	closedir(d);
	rmdir(dir);
}

int
archive_child_read(archive_reader *reader, const struct archive_options *o,
		   const struct source_consumer *c, char *err, size_t errlen)
{
	struct readers		rd = { .resume = { .volume = -1, .after = NAN } };
	struct wire_window	open = { .is_open = 0 };
	struct wire_outcome	out;
	char			scratch[PATH_MAX];
	int			sts, wstatus;

	if ((sts = scratch_make(scratch, sizeof(scratch))) < 0) {
		snprintf(err, errlen, "cannot make a directory for archive volumes: %s",
			 strerror(-sts));
		return -1;
	}
	for (;;) {
		sts = run_child(reader, o, c, rd.crashes ? &rd.resume : NULL, scratch, &open,
				&out, &wstatus);
		if (sts < 0 || out.done || successor(o, &rd, &out, wstatus, err, errlen) < 0)
			break;
	}
	scratch_remove(scratch);
	if (sts < 0) {		/* the consumer's error: its message is in err */
		if (err[0] == '\0')
			snprintf(err, errlen, "%s", strerror(-sts));
		return -1;
	}
	if (!out.done)
		return -1;
	if (out.status < 0)
		snprintf(err, errlen, "%s", out.err);
	return out.status < 0 ? -1 : (out.status > 0 || rd.crashes > 0);
}
