/*
 * proc_filter.c - resolve the process selection to PIDs (see header).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pcp/pmapi.h>
#include "control_parse.h"
#include "proc_filter.h"
#include "lib/array.h"

struct pid_set {
	pid_t	*v;
	size_t	n, cap;
};

struct proc_filter {
	struct bounded_regex *regex;	/* NULL: no regex */
	struct pid_set	listed;		/* from stackprof.control.pids */
	struct pid_set	resolved;	/* last answer of proc_filter_resolve */
	struct pid_set	previous;
	bool		resolved_once;
	uint64_t	regex_limited;	/* subjects whose match hit a limit */
};

static int
pid_set_add(struct pid_set *s, pid_t pid)
{
	if (array_reserve(&s->v, &s->cap, s->n + 1) < 0)
		return -ENOMEM;
	s->v[s->n++] = pid;
	return 0;
}

static int
pid_cmp(const void *a, const void *b)
{
	pid_t	x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Sort and drop duplicates. */
static void
pid_set_normalize(struct pid_set *s)
{
	size_t	i, j = 0;

	if (s->n == 0)
		return;
	qsort(s->v, s->n, sizeof(*s->v), pid_cmp);
	for (i = 1; i < s->n; i++)
		if (s->v[i] != s->v[j])
			s->v[++j] = s->v[i];
	s->n = j + 1;
}

struct proc_filter *
proc_filter_new(void)
{
	return calloc(1, sizeof(struct proc_filter));
}

void
proc_filter_free(struct proc_filter *f)
{
	if (f == NULL)
		return;
	control_free_regex(f->regex);
	free(f->listed.v);
	free(f->resolved.v);
	free(f->previous.v);
	free(f);
}

void
proc_filter_set_regex(struct proc_filter *f, struct bounded_regex *re)
{
	control_free_regex(f->regex);
	f->regex = re;
	f->resolved_once = false;	/* next resolve reports a change */
}

int
proc_filter_set_pids(struct proc_filter *f, const pid_t *pids, size_t n)
{
	struct pid_set	s = { NULL, 0, 0 };
	size_t		i;

	for (i = 0; i < n; i++)
		if (pid_set_add(&s, pids[i]) < 0) {
			free(s.v);
			return -ENOMEM;
		}
	free(f->listed.v);
	f->listed = s;
	f->resolved_once = false;
	return 0;
}

bool
proc_filter_all(const struct proc_filter *f)
{
	return f->regex == NULL && f->listed.n == 0;
}

/* Read a small /proc file; NULs (cmdline separators) become spaces.
 * Its length, or -1. */
static ssize_t
read_proc_text(int dirfd, const char *name, char *buf, size_t len)
{
	ssize_t	got, i;
	int	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	got = read(fd, buf, len - 1);
	close(fd);
	if (got < 0)
		return -1;
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\0'))
		got--;
	for (i = 0; i < got; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[got] = '\0';
	return got;
}

/* A match that hits the regex's limits counts as none, and is counted. */
static bool
search(struct proc_filter *f, const char *text, size_t len)
{
	int	rc = bounded_regex_search(f->regex, text, len);

	if (rc < 0)
		f->regex_limited++;
	return rc == 1;
}

static bool
process_matches(struct proc_filter *f, int procfd, const char *pid)
{
	char	text[4096];
	bool	match = false;
	ssize_t	len;
	int	dirfd = openat(procfd, pid, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dirfd < 0)
		return false;	/* exited while we scanned */
	if ((len = read_proc_text(dirfd, "comm", text, sizeof(text))) >= 0)
		match = search(f, text, (size_t)len);
	if (!match && (len = read_proc_text(dirfd, "cmdline", text, sizeof(text))) > 0)
		match = search(f, text, (size_t)len);
	close(dirfd);
	return match;
}

static void
scan_proc(struct proc_filter *f, const char *proc_root)
{
	DIR		*dir = opendir(proc_root);
	struct dirent	*d;

	if (dir == NULL) {
		pmNotifyErr(LOG_ERR, "proc_filter: opendir %s: %s", proc_root, strerror(errno));
		return;
	}
	while ((d = readdir(dir)) != NULL) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		if (process_matches(f, dirfd(dir), d->d_name))
			pid_set_add(&f->resolved, (pid_t)atoi(d->d_name));
	}
	closedir(dir);
}

bool
proc_filter_resolve(struct proc_filter *f, const char *proc_root,
		    const pid_t **pids, size_t *n)
{
	struct pid_set	tmp;
	bool		changed;
	size_t		i;

	/* keep the last answer to tell the caller whether anything moved */
	tmp = f->previous;
	f->previous = f->resolved;
	f->resolved = tmp;
	f->resolved.n = 0;

	for (i = 0; i < f->listed.n; i++)
		pid_set_add(&f->resolved, f->listed.v[i]);
	if (f->regex != NULL)
		scan_proc(f, proc_root);
	pid_set_normalize(&f->resolved);

	changed = !f->resolved_once || f->resolved.n != f->previous.n ||
		  (f->resolved.n && memcmp(f->resolved.v, f->previous.v,
					   f->resolved.n * sizeof(pid_t)) != 0);
	f->resolved_once = true;
	*pids = f->resolved.v;
	*n = f->resolved.n;
	return changed;
}

bool
proc_filter_selected(const struct proc_filter *f, pid_t pid)
{
	size_t	i;

	if (proc_filter_all(f))
		return true;
	for (i = 0; i < f->resolved.n; i++)
		if (f->resolved.v[i] == pid)
			return true;
	return false;
}

bool
proc_filter_note_exec(struct proc_filter *f, const char *proc_root, pid_t pid,
		      const pid_t **pids, size_t *n)
{
	char	name[32];
	int	procfd;
	bool	match;
	size_t	i;

	if (f->regex == NULL || !f->resolved_once)
		return false;	/* all selected, or a full resolve is due anyway */
	for (i = 0; i < f->resolved.n; i++)
		if (f->resolved.v[i] == pid)
			return false;
	if ((procfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return false;
	snprintf(name, sizeof(name), "%d", (int)pid);
	match = process_matches(f, procfd, name);
	close(procfd);
	if (!match || pid_set_add(&f->resolved, pid) < 0)
		return false;
	pid_set_normalize(&f->resolved);
	*pids = f->resolved.v;
	*n = f->resolved.n;
	return true;
}

uint64_t
proc_filter_regex_limited(const struct proc_filter *f)
{
	return f->regex_limited;
}
