/*
 * archive_damage.h - what an archive reader does at damage: say where on
 * stderr (archive, volume, time), keep what is lost as a gap, and go on
 * from the next volume when there is one.  Private to source/.
 *
 * A fetch that fails breaks the volume: nothing after the bad record can
 * be found in it, so reading goes on from the next volume (a context over
 * the later volumes alone, archive_volumes.h).  A result whose records
 * cannot be unpacked costs that result only.  A crash in libpcp (an
 * isolated reader, archive_child.c) resumes the same way, in a new child.
 * Damage that fails the archive's open (in its last volume) leaves out
 * that volume (cut): reading stops before it, and goes on after it.
 */
#ifndef ARCHIVE_DAMAGE_H
#define ARCHIVE_DAMAGE_H

#include <stdbool.h>
#include "archive_volumes.h"
#include "source.h"

struct archive_damage {
	const char		*path;		/* as given */
	const char		*host;
	double			from, to;	/* the window: gaps are clipped to it */
	struct archive_files	files;
	bool			have_files;
	char			links[PATH_MAX];	/* links of a resumed context, or "" */
	double			open_since;	/* a gap waiting for its end; NAN: none */
	char			why[PATH_MAX + 256];
	int			count;		/* damages seen */
	int			cut;		/* a volume the archive could not be
						   opened with, left out; -1: none */
	const char		*cut_why;
};

void archive_damage_init(struct archive_damage *d, const char *path, const char *host,
			 double from, double to);
void archive_damage_free(struct archive_damage *d);

/*
 * pmFetch failed with sts after the result at last (NAN: none read): say
 * so, open a gap, and open the context over the next volume (current),
 * under scratch.  The new context, or -1 when nothing follows.
 */
int archive_damage_fetch(struct archive_damage *d, int sts, double last, const char *scratch);

/*
 * The reader in a crashed child died in volume vol (-1: unknown) after
 * the result at last: say so, open the gap with why, and open the context
 * over the volumes after vol (current).  The context, or -1 when nothing
 * follows.
 */
int archive_damage_resume(struct archive_damage *d, int vol, double last, const char *why,
			  const char *scratch);

/*
 * The context over the volumes before d->cut ended after the result at
 * last: say the cut volume is damaged, open the gap, and open the context
 * over the volumes after it (current).  The context, or -1 when nothing
 * follows.
 */
int archive_damage_cut(struct archive_damage *d, double last, const char *scratch);

/* The result at t could not be unpacked (PCP error sts): a gap (last, t]. */
int archive_damage_result(struct archive_damage *d, int sts, double last, double t,
			  const struct source_consumer *c);

/* A result at t was read: an open gap ends there. */
int archive_damage_read(struct archive_damage *d, double t, const struct source_consumer *c);
/* Reading ended: an open gap ends with the window. */
int archive_damage_end(struct archive_damage *d, const struct source_consumer *c);

#endif /* ARCHIVE_DAMAGE_H */
