/*
 * control_file.h - the state file that keeps stored controls across
 * restarts of the PMDA: its format, read and atomic write.
 *
 * One "NAME=VALUE" line per control, NAME as in stackprof.control.NAME.
 * In VALUE a backslash, a newline, a tab and any other byte below 0x20 or
 * 0x7f are escaped (\\, \n, \t, \xHH), so every value fits on its line.
 * Empty lines and lines starting with '#' are comments.  No knowledge of
 * which names exist or what values they take: that is the control table's
 * (controls.c), which also decides what a bad line costs.
 */
#ifndef CONTROL_FILE_H
#define CONTROL_FILE_H

#include <stddef.h>

/* Largest state file read; a bigger one is refused as a whole. */
#define CONTROL_FILE_MAX	(256u << 10)

/* Called for each entry (line numbers from 1); value is unescaped and
 * NUL-terminated, so a value holding a NUL byte ends there: such a line is
 * reported as bad instead. */
typedef void (*control_file_entry_fn)(void *arg, unsigned line,
				      const char *name, const char *value);
/* Called for each line that is not an entry or a comment, with why. */
typedef void (*control_file_bad_fn)(void *arg, unsigned line, const char *why);

/* Parse len bytes of state file text (need not be NUL-terminated).
 * Returns the number of bad lines. */
unsigned control_file_parse(const char *text, size_t len, control_file_entry_fn entry,
			    control_file_bad_fn bad, void *arg);

/* Read and parse path.  0, or -errno when it cannot be read (-ENOENT: there
 * is none; -EFBIG: larger than CONTROL_FILE_MAX), nothing parsed then. */
int control_file_read(const char *path, control_file_entry_fn entry,
		      control_file_bad_fn bad, void *arg);

/* Write n entries to path atomically: a temporary file in the same
 * directory, mode 0600, fsync'ed, renamed over path, then the directory
 * fsync'ed.  0, or -errno and path holds what it held before (or, when
 * only the directory's fsync failed, the new entries but perhaps not yet
 * on disk). */
int control_file_write(const char *path, const char *const names[],
		       const char *const values[], size_t n);

#endif /* CONTROL_FILE_H */
