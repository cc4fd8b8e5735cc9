/*
 * archive_child.h - read archives in a child process, so that libpcp
 * crashing on a damaged archive (6.0.3 dies in __pmDecodeValueSet under
 * pmFetch on bit flips) costs the damaged part, not the run.  Private to
 * source/; source_archive_read() comes here when o->isolate is set.
 *
 * The child runs the reader it is given (source_archive_read(), passed in
 * so that this file needs nothing of its caller's), unisolated, with a
 * consumer that writes every call into a pipe (archive_wire.h), and says
 * after each result where it is.  pmflame replays the calls into the real
 * consumer.  When the child dies, pmflame starts another that skips what
 * was read and goes on after the volume it died in; the damage is said and
 * becomes a gap like any other.  Returns as source_archive_read().
 */
#ifndef ARCHIVE_CHILD_H
#define ARCHIVE_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include "source.h"

typedef int archive_reader(const struct archive_options *o, const struct source_consumer *c,
			   char *err, size_t errlen);

int archive_child_read(archive_reader *reader, const struct archive_options *o,
		       const struct source_consumer *c, char *err, size_t errlen);

/* Whether order (an archive's place on the command line) is among the n
 * of orders: the lists of a struct archive_resume. */
bool archive_listed(const int *orders, int n, int order);

#endif /* ARCHIVE_CHILD_H */
