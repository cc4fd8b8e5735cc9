/*
 * sym_testlib.h - helpers the symbolizer unit tests (and other PMDA unit
 * tests) share: a scratch directory, compiling programs the test writes
 * itself, running them as live processes that report the addresses of
 * their own functions, and counting this process's fds of a kind.
 */
#ifndef SYM_TESTLIB_H
#define SYM_TESTLIB_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char scratch[256];

static inline void
scratch_cleanup(void)
{
	char cmd[300];

	if (scratch[0] && getenv("SYM_TEST_KEEP") == NULL) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", scratch);
	}
}

static inline const char *
scratch_dir(void)
{
	if (scratch[0] == '\0') {
		snprintf(scratch, sizeof(scratch), "/tmp/symtest.XXXXXX");
		if (mkdtemp(scratch) == NULL) {
			perror("mkdtemp");
			exit(2);
		}
		atexit(scratch_cleanup);
	}
	return scratch;
}

/* scratch/name, in a static ring of buffers so a few can be live at once. */
static inline const char *
spath(const char *name)
{
	static char ring[8][512];
	static int next;
	char *p = ring[next++ % 8];

	snprintf(p, 512, "%s/%s", scratch_dir(), name);
	return p;
}

static inline void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

/* The whole file at path; the test cannot go on without it. */
static inline unsigned char *
slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) != 0)
		exit(2);
	buf = malloc(st.st_size);
	if (buf == NULL || read(fd, buf, st.st_size) != st.st_size)
		exit(2);
	close(fd);
	*len = st.st_size;
	return buf;
}

/* Write len bytes of buf to path (mode 0755). */
static inline void
spill(const char *path, const unsigned char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		exit(2);
	close(fd);
}

/* Run a shell command; the test cannot go on without its result. */
static inline void
must_run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0) {
		fprintf(stderr, "command failed: %s\n", cmd);
		exit(2);
	}
}

/* A live child: its pid, and its stdin (closing it ends the child). */
struct child {
	pid_t	pid;
	int	in;
	FILE	*out;
};

/* Start argv[0] with pipes on stdin and stdout. */
static inline struct child
child_start(char *const argv[])
{
	int to[2], from[2];
	struct child c = { .pid = -1, .in = -1 };

	if (pipe(to) != 0 || pipe(from) != 0) {
		perror("pipe");
		exit(2);
	}
	if ((c.pid = fork()) == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	c.in = to[1];
	c.out = fdopen(from[0], "r");
	return c;
}

/* The next "0xADDR name" line the child prints (the name runs to the end
 * of the line, spaces included); 0 at end of output. */
static inline unsigned long
child_addr(struct child *c, char *name, size_t len)
{
	char line[512], n[256];
	unsigned long a;

	while (fgets(line, sizeof(line), c->out)) {
		if (sscanf(line, "%lx %255[^\n]", &a, n) == 2) {
			snprintf(name, len, "%s", n);
			return a;
		}
	}
	return 0;
}

static inline void
child_stop(struct child *c)
{
	int status;

	if (c->in >= 0)
		close(c->in);
	if (c->out)
		fclose(c->out);
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &status, 0);
	c->in = -1;
	c->out = NULL;
}

static inline bool
have_program(const char *name)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0;
}

/* Open fds of this process whose link target contains `kind`. */
static inline int
count_fds(const char *kind)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], target[128];
	int n = 0;

	while (d && (e = readdir(d)) != NULL) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = '\0';
			n += strstr(target, kind) != NULL;
		}
	}
	if (d)
		closedir(d);
	return n;
}

#endif /* SYM_TESTLIB_H */
