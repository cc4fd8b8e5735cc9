/*
 * privilege.c - drop to the capabilities the agent needs (see header).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include "privilege.h"

static const cap_value_t kept[] = {
	CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_CHECKPOINT_RESTORE,
};
#define NKEPT	(sizeof(kept) / sizeof(kept[0]))

uint64_t
privilege_kept_mask(void)
{
	uint64_t	m = 0;

	for (size_t i = 0; i < NKEPT; i++)
		m |= UINT64_C(1) << kept[i];
	return m;
}

static bool
is_kept(cap_value_t c)
{
	return (privilege_kept_mask() >> c) & 1;
}

static int
lookup(const char *user, uid_t *uid, gid_t *gid, char *why, size_t whylen)
{
	struct passwd	*pw;

	errno = 0;
	if ((pw = getpwnam(user)) == NULL) {
		snprintf(why, whylen, "no user %s", user);
		return errno ? -errno : -ENOENT;
	}
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

int
privilege_own_dir(const char *dir, const char *user, char *why, size_t whylen)
{
	struct stat	st;
	uid_t		uid = 0;
	gid_t		gid = 0;
	int		fd, sts = 0;

	if (user && strcmp(user, "root") != 0 && (sts = lookup(user, &uid, &gid, why, whylen)) < 0)
		return sts;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		sts = -errno;
		snprintf(why, whylen, "mkdir %s: %s", dir, strerror(errno));
		return sts;
	}
	/* O_NOFOLLOW: a symlink planted here must not lend us /etc */
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		sts = -errno;
		snprintf(why, whylen, "%s: %s (a directory, not a symlink, is needed)",
			 dir, strerror(errno));
		return sts;
	}
	if (fstat(fd, &st) < 0 || ((st.st_uid != uid || st.st_gid != gid) && fchown(fd, uid, gid) < 0) ||
	    ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) < 0)) {
		sts = -errno;
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
	}
	close(fd);
	return sts;
}

static int
threads(void)
{
	char	line[128];
	int	n = -1;
	FILE	*f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/* Cut the bounding set to the kept capabilities (needs CAP_SETPCAP). */
static int
drop_bounding(char *why, size_t whylen)
{
	cap_value_t	c, max = cap_max_bits();

	for (c = 0; c < max; c++) {
		if (is_kept(c) || cap_get_bound(c) <= 0)
			continue;
		if (cap_drop_bound(c) < 0) {
			int	err = errno;
			char	*name = cap_to_name(c);

			snprintf(why, whylen, "cannot drop %s from the bounding set: %s",
				 name ? name : "?", strerror(err));
			cap_free(name);
			return -err;
		}
	}
	return 0;
}

static int
become(const char *user, char *why, size_t whylen)
{
	uid_t	uid = 0;
	gid_t	gid = 0;
	int	sts;

	if (user == NULL || strcmp(user, "root") == 0)
		return 0;
	if ((sts = lookup(user, &uid, &gid, why, whylen)) < 0)
		return sts;
	/* libcap keeps the permitted set across the uid change */
	if (cap_setgroups(gid, 0, NULL) < 0 || cap_setuid(uid) < 0) {
		sts = -errno;
		snprintf(why, whylen, "cannot become %s: %s", user, strerror(errno));
	}
	return sts;
}

/* Permitted and effective: the kept capabilities we hold; inheritable none. */
static int
keep_only(char *why, size_t whylen)
{
	cap_t		now = cap_get_proc(), want = cap_init();
	cap_flag_value_t have;
	int		sts = 0;

	if (now == NULL || want == NULL) {
		sts = -ENOMEM;
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < NKEPT; i++) {
		if (cap_get_flag(now, kept[i], CAP_PERMITTED, &have) == 0 && have == CAP_SET) {
			cap_set_flag(want, CAP_PERMITTED, 1, &kept[i], CAP_SET);
			cap_set_flag(want, CAP_EFFECTIVE, 1, &kept[i], CAP_SET);
		}
	}
	if (cap_set_proc(want) < 0 || (CAP_AMBIENT_SUPPORTED() && cap_reset_ambient() < 0)) {
		sts = -errno;
		snprintf(why, whylen, "cannot set the capabilities: %s", strerror(errno));
	}
out:
	cap_free(now);
	cap_free(want);
	return sts;
}

int
privilege_drop(const char *user, char *why, size_t whylen)
{
	int	sts;

	if (threads() != 1) {
		snprintf(why, whylen, "%d threads: capabilities are per thread, drop before any starts",
			 threads());
		return -EBUSY;
	}
	if ((sts = drop_bounding(why, whylen)) < 0 || (sts = become(user, why, whylen)) < 0 ||
	    (sts = keep_only(why, whylen)) < 0)
		return sts;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		sts = -errno;
		snprintf(why, whylen, "no_new_privs: %s", strerror(-sts));
	}
	return sts;
}
