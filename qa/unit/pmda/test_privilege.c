/*
 * test_privilege - privilege_drop() leaves the five capabilities in the
 * effective, permitted and bounding sets and nothing inheritable or
 * ambient, with no_new_privs, as the user asked for; it refuses with a
 * second thread alive; privilege_own_dir() refuses a symlink and hands a
 * directory to the user.  Each case runs in a child (a drop is for good).
 */
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "unit.h"
#include "privilege/privilege.h"

/* "CapEff:\t000001c000080004" -> the mask */
static uint64_t
status_field(const char *name)
{
	char		line[256];
	uint64_t	v = UINT64_MAX;
	size_t		n = strlen(name);
	FILE		*f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, name, n) == 0 && line[n] == ':')
			v = strtoull(line + n + 1, NULL, strncmp(name, "Cap", 3) == 0 ? 16 : 10);
	if (f)
		fclose(f);
	return v;
}

/* Run fn in a child; its exit status (0: all its checks held). */
static int
in_child(int (*fn)(void))
{
	int	status;
	pid_t	pid = fork();

	if (pid == 0)
		_exit(fn());
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

static int
drop_to_nobody(void)
{
	char		why[256];
	uint64_t	kept = privilege_kept_mask();
	int		bad = 0;

	if (privilege_drop("nobody", why, sizeof(why)) != 0) {
		fprintf(stderr, "drop: %s\n", why);
		return 1;
	}
	bad += status_field("CapEff") != kept;
	bad += status_field("CapPrm") != kept;
	bad += status_field("CapBnd") != kept;
	bad += status_field("CapInh") != 0;
	bad += status_field("CapAmb") != 0;
	bad += status_field("NoNewPrivs") != 1;
	bad += getuid() != getpwnam("nobody")->pw_uid || geteuid() != getuid();
	bad += setuid(0) == 0;		/* no way back */
	return bad;
}

static void *
idle(void *arg)
{
	pause();
	return arg;
}

static int
drop_with_a_thread(void)
{
	char		why[256];
	pthread_t	t;

	pthread_create(&t, NULL, idle, NULL);
	return privilege_drop("nobody", why, sizeof(why)) == -EBUSY && strstr(why, "threads") ? 0 : 1;
}

static void
test_own_dir(void)
{
	char		dir[] = "/tmp/test_privilege.XXXXXX", sub[64], link[64];
	char		why[256];
	struct stat	st;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(sub, sizeof(sub), "%s/state", dir);
	snprintf(link, sizeof(link), "%s/linked", dir);
	CHECK_INT(privilege_own_dir(sub, "nobody", why, sizeof(why)), 0);
	CHECK(stat(sub, &st) == 0 && st.st_uid == getpwnam("nobody")->pw_uid &&
	      (st.st_mode & 07777) == 0700);
	CHECK(symlink(dir, link) == 0);
	CHECK(privilege_own_dir(link, "nobody", why, sizeof(why)) < 0);
	CHECK(stat(dir, &st) == 0 && st.st_uid == 0);	/* its target untouched */
	unlink(link);
	rmdir(sub);
	rmdir(dir);
}

int
main(void)
{
	if (geteuid() != 0)
		unit_skip("test_privilege", "needs root");
	CHECK_INT(in_child(drop_to_nobody), 0);
	CHECK_INT(in_child(drop_with_a_thread), 0);
	test_own_dir();
	return unit_report("test_privilege");
}
