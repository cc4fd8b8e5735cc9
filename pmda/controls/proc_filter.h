/*
 * proc_filter.h - which processes to sample: the union of a PID list and
 * the processes whose comm or command line matches a regex.
 *
 * The regex is resolved to PIDs by scanning /proc; drain.c rescans once per
 * interval so new matching processes join within one interval.  With neither
 * a list nor a regex, every process is selected.
 */
#ifndef PROC_FILTER_H
#define PROC_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "lib/bounded_regex.h"

struct proc_filter;

struct proc_filter *proc_filter_new(void);
void proc_filter_free(struct proc_filter *f);

/* Replace the regex with re, compiled by control_parse_regex (NULL clears
 * it); the filter owns re from then on. */
void proc_filter_set_regex(struct proc_filter *f, struct bounded_regex *re);
/* Replace the PID list (copied). */
int proc_filter_set_pids(struct proc_filter *f, const pid_t *pids, size_t n);

/* True when neither a list nor a regex is set. */
bool proc_filter_all(const struct proc_filter *f);

/*
 * Rescan /proc (under proc_root, normally "/proc") when a regex is set and
 * return the selected PIDs (sorted, unique) in *pids and *n, owned by the filter
 * and valid until the next call.  Returns true when the set changed since
 * the previous call.
 */
bool proc_filter_resolve(struct proc_filter *f, const char *proc_root,
			 const pid_t **pids, size_t *n);

/* Whether pid is in the last resolved set (always true when all are selected). */
bool proc_filter_selected(const struct proc_filter *f, pid_t pid);

/*
 * A program was just exec'd as pid: if it matches the regex and is not yet
 * selected, add it to the resolved set at once (no full rescan) and return
 * true with the new set in *pids and *n.
 */
bool proc_filter_note_exec(struct proc_filter *f, const char *proc_root, pid_t pid,
			   const pid_t **pids, size_t *n);

/* Subjects (comm or command line) whose match stopped at the regex's
 * limits and so did not select their process, since the filter was made. */
uint64_t proc_filter_regex_limited(const struct proc_filter *f);

#endif /* PROC_FILTER_H */
