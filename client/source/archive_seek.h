/*
 * archive_seek.h - where to start reading an archive's stack history for
 * a range: the keyframe logged at or before the range's start (a value
 * that defines again every id it uses, docs/design.md "History value"),
 * found by reading the history backward from there.  Private to source/.
 */
#ifndef ARCHIVE_SEEK_H
#define ARCHIVE_SEEK_H

#include <sys/time.h>
#include <pcp/pmapi.h>

/*
 * In the current archive context (its start at first), the timestamp of
 * the last result at or before t whose history value is a keyframe, in
 * *at: 0.  1 when reading must start at the archive's start: its first
 * history value is no keyframe (the PMDA wrote none), or none precedes t.
 * A PCP error when a fetch fails (the caller reads from the start, where
 * damage is handled).  *back: the results read backward.  The context's
 * mode is left to the caller.
 */
int archive_keyframe(pmID history, const struct timeval *first, double t, struct timeval *at,
		     unsigned *back);

#endif /* ARCHIVE_SEEK_H */
