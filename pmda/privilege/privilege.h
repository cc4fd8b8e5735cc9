/*
 * privilege.h - what pmdastackprof may still do once it has started.
 *
 * pmcd starts agents as root with every capability.  Once the BPF programs
 * are loaded and the perf events attached, privilege_drop() makes the
 * agent run as an unprivileged user (pcp, PCP's own) keeping only the
 * capabilities that serving needs, each found by trying (docs/design.md,
 * "Least privilege"):
 *
 *   CAP_BPF, CAP_PERFMON     a store of frequency/interval loads a second BPF
 *                            object and attaches new perf events; enable
 *                            0 -> 1 attaches again; CAP_PERFMON also lets us
 *                            read every /proc/PID/maps
 *   CAP_SYS_PTRACE           /proc/PID/root (files as a container sees them),
 *                            /proc/PID/exe, /proc/PID/mem (the vDSO)
 *   CAP_DAC_READ_SEARCH      other users' binaries, perf maps and /proc/PID/mem
 *                            behind modes that keep others out (read only)
 *   CAP_CHECKPOINT_RESTORE   /proc/PID/map_files: deleted or replaced binaries
 *
 * The bounding set is cut to the same five and no_new_privs is set, so a
 * program it ran could never gain more.  Not kept: CAP_SYSLOG (kallsyms is
 * read through a descriptor opened before the drop), CAP_SYS_ADMIN,
 * CAP_SYS_RESOURCE (BPF memory is charged to the cgroup since 5.11),
 * CAP_DAC_OVERRIDE, CAP_CHOWN, CAP_FOWNER, CAP_SETUID and the rest: the
 * agent can write only where its user can, i.e. its own state directory.
 */
#ifndef PRIVILEGE_H
#define PRIVILEGE_H

#include <stddef.h>
#include <stdint.h>

/* The capabilities kept, as a mask of 1 << CAP_*, as /proc/PID/status
 * shows CapEff, CapPrm and CapBnd after the drop. */
uint64_t privilege_kept_mask(void);

/*
 * Make dir (created 0700 if missing) owned by user and mode 0700, refusing
 * a symlink or anything but a directory in its place, so that the agent can
 * write there once it runs as user.  Call while still root.  0, or -errno
 * with the reason in why.
 */
int privilege_own_dir(const char *dir, const char *user, char *why, size_t whylen);

/*
 * Become user (NULL or "root": stay uid 0) keeping only the capabilities
 * above, in the permitted, effective and bounding sets; clear the
 * inheritable and ambient sets; set no_new_privs.  Capabilities belong to
 * threads: call it while the process has one thread (-EBUSY otherwise).
 * 0, or -errno with the reason in why (the process may then be half-way:
 * the caller should not go on serving).
 */
int privilege_drop(const char *user, char *why, size_t whylen);

#endif /* PRIVILEGE_H */
