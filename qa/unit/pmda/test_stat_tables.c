/*
 * test_stat_tables - the stats tables (agent/stat_tables.h) describe
 * metrics pmcd can serve: every table has a cluster of its own, apart
 * from the controls', the heat map's and every profile's; items are
 * unique in a table and names over all of them; every row has help and
 * reads inside its table's snapshot; a part that is not there (NULL
 * handle) gives no values rather than a crash.
 */
#include <string.h>
#include "unit.h"
#include "agent/profiles.h"
#include "agent/stat_tables.h"
#include "lib/stat_table.h"
#include "pcp/pmid.h"

static bool
name_ok(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static void
test_clusters(void)
{
	const struct stat_table	*t, *u;
	size_t			i, j, p;

	for (i = 0; (t = agent_stat_table(i)) != NULL; i++) {
		CHECK(t->cluster != CL_CONTROL && t->cluster != CL_HEATMAP);
		for (p = 0; p < NPROFILES; p++)
			CHECK(t->cluster != profile_defs[p].cluster);
		for (j = 0; j < i; j++) {
			u = agent_stat_table(j);
			CHECK(t->cluster != u->cluster);
		}
		CHECK(t->cluster < 4096);	/* PMID cluster: 12 bits */
	}
	CHECK(i >= 7);
}

static void
test_rows(void)
{
	const struct stat_table	*t, *u;
	size_t			i, j, r, k, n = 0;

	for (i = 0; (t = agent_stat_table(i)) != NULL; i++) {
		CHECK(t->nrows > 0 && t->snapshot != NULL && t->name != NULL);
		for (r = 0; r < t->nrows; r++, n++) {
			const struct stat_def	*d = &t->rows[r];

			CHECK(name_ok(d->name));
			CHECK(d->item < 1024);		/* PMID item: 10 bits */
			CHECK(d->oneline != NULL && d->oneline[0] != '\0' &&
			      strchr(d->oneline, '\n') == NULL);
			CHECK(d->help != NULL);
			if (d->get == NULL)
				CHECK(d->offset + sizeof(uint64_t) <= t->snap_size);
			for (k = 0; k < r; k++)
				CHECK(t->rows[k].item != d->item);
			for (j = 0; j <= i; j++) {
				u = agent_stat_table(j);
				for (k = 0; k < (j == i ? r : u->nrows); k++)
					if (strcmp(u->rows[k].name, d->name) == 0) {
						fprintf(stderr, "stat %s twice\n", d->name);
						CHECK(0);
					}
			}
		}
	}
	CHECK(n >= 104);	/* every stat of the single cluster it replaced */
}

static void
test_absent_parts(void)
{
	const struct stat_table	*t;
	size_t			i;
	char			snap[4096];

	/* the agent's own tables never get NULL; the parts' may */
	for (i = 0; (t = agent_stat_table(i)) != NULL; i++) {
		CHECK(t->snap_size <= sizeof(snap));
		if (strcmp(t->name, "drain") != 0 && strcmp(t->name, "controls") != 0)
			CHECK(t->snapshot(NULL, snap) < 0);
	}
	CHECK(agent_stat_table(i + 1) == NULL);
}

int
main(void)
{
	test_clusters();
	test_rows();
	test_absent_parts();
	return unit_report("test_stat_tables");
}
