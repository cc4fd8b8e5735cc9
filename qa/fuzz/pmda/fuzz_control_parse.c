/*
 * fuzz_control_parse.c - the text of stackprof.control.* stores and of
 * pmdastackprof's options (pmda/controls/control_parse.c), and a stored regex
 * at work: it selects processes by comm and command line, which any user
 * chooses, so a regex and a process name from the input are matched
 * through proc_filter against a fake /proc.
 *
 * Input: NUL-separated parts: number, PID list, regex, comm, cmdline.
 * Checked beyond "no crash": the validators' contracts (a number inside its
 * bounds, PIDs > 0 and unique, *out untouched on error), and that an
 * accepted regex holds at most REGEX_HELD_MAX once compiled (the PMDA keeps
 * it for as long as it runs); a slow match is a finding through -timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sanitizer/allocator_interface.h>
#include <sys/stat.h>
#include "fuzz.h"
#include "controls/control_parse.h"
#include "controls/proc_filter.h"

#define REGEX_HELD_MAX	(16u << 20)

static const char *proc_root;

static void
write_text(const char *name, const char *text)
{
	char	path[128];
	int	fd;

	snprintf(path, sizeof(path), "%s/4242/%s", proc_root, name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0 ||
	    write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror(path);
		exit(2);
	}
	close(fd);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char	dir[128];

	(void)argc;
	(void)argv;
	proc_root = fuzz_scratch();
	snprintf(dir, sizeof(dir), "%s/4242", proc_root);
	if (mkdir(dir, 0700) < 0)
		exit(2);
	return 0;
}

static void
check_uint(const char *text)
{
	static const unsigned bounds[][2] = {
		{ 1, 1000 }, { 10, 60000 }, { 0, UINT_MAX }, { 5, 5 }, { 1, INT_MAX },
	};

	for (size_t b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++) {
		unsigned v = 12345;
		int sts = control_parse_uint(text, bounds[b][0], bounds[b][1], &v);

		if (sts < 0 && v != 12345)
			abort();	/* *out changed on error */
		if (sts == 0 && (v < bounds[b][0] || v > bounds[b][1]))
			abort();
	}
}

static void
check_pids(const char *text)
{
	static pid_t	sentinel[1];
	pid_t	*pids = sentinel;
	size_t	n = 777;
	int	sts = control_parse_pids(text, &pids, &n);

	if (sts < 0) {
		if (pids != sentinel || n != 777)
			abort();
		return;
	}
	if (n > CONTROL_PIDS_MAX || (n == 0) != (pids == NULL))
		abort();
	for (size_t i = 0; i < n; i++) {
		if (pids[i] <= 0)
			abort();
		for (size_t j = 0; j < i; j++)
			if (pids[i] == pids[j])
				abort();
	}
	free(pids);
}

static void
check_regex(const char *text, const char *comm, const char *cmdline)
{
	static char		sentinel;
	struct bounded_regex	*re = (struct bounded_regex *)&sentinel;
	char			why[160];
	struct proc_filter	*f;
	const pid_t		*pids;
	size_t			n, before = __sanitizer_get_current_allocated_bytes();

	if (control_parse_regex(text, &re, why, sizeof(why)) < 0) {
		if (re != (struct bounded_regex *)&sentinel || why[0] == '\0')
			abort();	/* *out changed on error */
		return;
	}
	if (__sanitizer_get_current_allocated_bytes() - before > REGEX_HELD_MAX)
		abort();
	if ((f = proc_filter_new()) == NULL)
		exit(2);
	proc_filter_set_regex(f, re);	/* f owns re */
	write_text("comm", comm);
	write_text("cmdline", cmdline);
	proc_filter_resolve(f, proc_root, &pids, &n);
	if (n > 1 || (n == 1 && pids[0] != 4242))
		abort();
	proc_filter_free(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*part[5];
	char		*copy = fuzz_split(data, size, part, 5);

	check_uint(part[0]);
	check_pids(part[1]);
	check_regex(part[2], part[3], part[4]);
	free(copy);
	return 0;
}
