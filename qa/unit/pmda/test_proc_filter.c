/*
 * test_proc_filter - the process selection resolves the regex over comm
 * and cmdline of a fake /proc, unions it with the PID list, and reports
 * changes only when the set moves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pcp/pmapi.h>
#include "unit.h"
#include "controls/control_parse.h"
#include "controls/proc_filter.h"

static char	root[] = "/tmp/test_proc_filter.XXXXXX";

static void
fake_process(int pid, const char *comm, const char *cmdline, size_t cmdlen)
{
	char	path[256];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%d", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/comm", root, pid);
	f = fopen(path, "w");
	fprintf(f, "%s\n", comm);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%d/cmdline", root, pid);
	f = fopen(path, "w");
	fwrite(cmdline, 1, cmdlen, f);
	fclose(f);
}

/* As the control table does: the text is compiled once, by the validator,
 * and the filter takes the compiled regex. */
static int
set_regex(struct proc_filter *f, const char *text)
{
	struct bounded_regex	*re;
	char			why[160];
	int			sts = control_parse_regex(text, &re, why, sizeof(why));

	if (sts == 0)
		proc_filter_set_regex(f, re);
	return sts;
}

int
main(void)
{
	struct proc_filter	*f = proc_filter_new();
	const pid_t		*pids;
	size_t			n;
	pid_t			list[] = { 7, 3 };

	if (mkdtemp(root) == NULL)
		return 1;
	fake_process(10, "nginx", "nginx\0-g\0daemon off;", 21);
	fake_process(11, "python3", "python3\0/srv/app.py", 19);
	fake_process(12, "bash", "", 0);	/* kernel-thread-like: empty cmdline */
	{
		char	self[256];	/* a non-numeric entry, as in the real /proc */

		snprintf(self, sizeof(self), "%s/self", root);
		mkdir(self, 0755);
	}

	CHECK(proc_filter_all(f));
	CHECK(proc_filter_resolve(f, root, &pids, &n));
	CHECK_INT(n, 0);
	CHECK(!proc_filter_resolve(f, root, &pids, &n));	/* unchanged */

	CHECK_INT(set_regex(f, "("), PM_ERR_BADSTORE);
	CHECK(proc_filter_all(f));	/* a refused regex changes nothing */

	CHECK_INT(set_regex(f, "app\\.py"), 0);	/* cmdline match */
	CHECK(!proc_filter_all(f));
	CHECK(proc_filter_resolve(f, root, &pids, &n));
	CHECK_INT(n, 1);
	if (n == 1)
		CHECK_INT(pids[0], 11);

	CHECK_INT(proc_filter_set_pids(f, list, 2), 0);
	CHECK(proc_filter_resolve(f, root, &pids, &n));
	CHECK_INT(n, 3);	/* union, sorted */
	if (n == 3) {
		CHECK_INT(pids[0], 3);
		CHECK_INT(pids[1], 7);
		CHECK_INT(pids[2], 11);
	}
	CHECK(!proc_filter_resolve(f, root, &pids, &n));

	CHECK_INT(set_regex(f, "^(nginx|bash)$"), 0);	/* comm match */
	CHECK(proc_filter_resolve(f, root, &pids, &n));
	CHECK_INT(n, 4);

	/* a matching process appears: the next resolve reports it */
	fake_process(20, "nginx", "nginx", 5);
	CHECK(proc_filter_resolve(f, root, &pids, &n));
	CHECK_INT(n, 5);

	/* an exec'd program matching the regex joins without a rescan */
	CHECK(proc_filter_selected(f, 20));
	CHECK(!proc_filter_selected(f, 30));
	fake_process(30, "nginx", "nginx", 5);
	CHECK(proc_filter_note_exec(f, root, 30, &pids, &n));
	CHECK_INT(n, 6);
	CHECK(proc_filter_selected(f, 30));
	CHECK(!proc_filter_note_exec(f, root, 30, &pids, &n));	/* already in */
	fake_process(31, "sshd", "sshd", 4);
	CHECK(!proc_filter_note_exec(f, root, 31, &pids, &n));	/* no match */
	CHECK(!proc_filter_selected(f, 31));

	CHECK_INT(set_regex(f, ""), 0);
	CHECK_INT(proc_filter_set_pids(f, NULL, 0), 0);
	CHECK(proc_filter_selected(f, 31));	/* all selected again */
	CHECK(proc_filter_all(f));
	proc_filter_free(f);

	{
		char	cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		if (system(cmd) != 0)
			return 1;
	}
	return unit_report("test_proc_filter");
}
