/*
 * stat_table.h - a subsystem's statistics as one table: the one source of
 * each stackprof.stats.* metric's PMID item, name, type, semantics, units,
 * help text and the place its value is read from.
 *
 * pmda/pcp/ builds its metric table from these rows and fetches through
 * them; help/stats_doc.c prints the help and pmns text from the same rows
 * (make runs it), so a new statistic is one row in its subsystem's table.
 * The types are PCP's in spirit but not in name: the subsystems do not
 * include PCP.
 */
#ifndef STAT_TABLE_H
#define STAT_TABLE_H

#include <stddef.h>
#include <stdint.h>

enum stat_type { STAT_U64, STAT_U32 };
enum stat_sem { STAT_COUNTER, STAT_INSTANT, STAT_DISCRETE };
enum stat_units { STAT_NONE, STAT_COUNT, STAT_BYTES, STAT_USEC, STAT_NSEC };

struct stat_def {
	unsigned	item;		/* PMID item in the table's cluster; archives
					 * hold it, so it is never reused */
	const char	*name;		/* stackprof.stats.NAME */
	enum stat_type	type;
	enum stat_sem	sem;
	enum stat_units	units;
	/* the value: get(snap) when get is set, else the uint64_t at offset
	 * in the table's snapshot */
	size_t		offset;
	uint64_t	(*get)(const void *snap);
	const char	*oneline;	/* help: one line */
	const char	*help;		/* help: the long text ("" for none) */
};

struct stat_table {
	const char	*name;		/* the subsystem */
	unsigned	cluster;	/* PMID cluster: one per table */
	size_t		snap_size;	/* bytes snapshot writes */
	/* Copy the subsystem's figures from its handle into snap (once per
	 * fetch); < 0 when there are none now (not started, read failed).
	 * handle may be NULL. */
	int		(*snapshot)(void *handle, void *snap);
	const struct stat_def *rows;
	size_t		nrows;
};

/* The head of a row: STAT_ROW(3, "map_full", U64, COUNTER, COUNT) */
#define STAT_ROW(it, nm, ty, se, un) \
	.item = (it), .name = (nm), .type = STAT_##ty, .sem = STAT_##se, .units = STAT_##un

#define STAT_ROWS(rows)	(rows), (sizeof(rows) / sizeof((rows)[0]))

/* The value of row d in a snapshot its table filled. */
static inline uint64_t
stat_value(const struct stat_def *d, const void *snap)
{
	if (d->get != NULL)
		return d->get(snap);
	return *(const uint64_t *)(const void *)((const char *)snap + d->offset);
}

#endif /* STAT_TABLE_H */
