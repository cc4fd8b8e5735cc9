/*
 * stat_tables.h - every part's stats table (lib/stat_table.h), and the
 * handle each one's snapshot reads.  pmda/pcp/ serves them; help/stats_doc
 * prints their help and pmns text.
 */
#ifndef STAT_TABLES_H
#define STAT_TABLES_H

#include <stddef.h>

struct agent;
struct stat_table;

/* Table i, in the order the PMNS lists them; NULL past the last. */
const struct stat_table *agent_stat_table(size_t i);
/* What table i's snapshot reads now: the part's handle, NULL while the
 * part is not there (no BPF, not started yet). */
void *agent_stat_handle(struct agent *a, size_t i);

#endif /* STAT_TABLES_H */
