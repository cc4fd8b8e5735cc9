/*
 * stats_doc.c - prints the help text ("help") or the PMNS subtree
 * ("pmns") of stackprof.stats.* from the parts' stats tables, the one
 * source of those metrics; make appends it to help/help and help/pmns,
 * which hold every other metric, into $(BUILD)/help/.
 */
#include <stdio.h>
#include <string.h>
#include "lib/stat_table.h"
#include "agent/stat_tables.h"

static void
print_help(void)
{
	const struct stat_table	*t;
	size_t			i, r;

	for (i = 0; (t = agent_stat_table(i)) != NULL; i++) {
		printf("\n# stackprof.stats.* of the %s: its stats table, cluster %u\n",
		       t->name, t->cluster);
		for (r = 0; r < t->nrows; r++) {
			const struct stat_def	*d = &t->rows[r];

			printf("\n@ stackprof.stats.%s %s\n", d->name, d->oneline);
			if (d->help[0] != '\0')
				printf("%s\n", d->help);
		}
	}
}

static void
print_pmns(void)
{
	const struct stat_table	*t;
	size_t			i, r;

	printf("\nstackprof.stats {\n");
	for (i = 0; (t = agent_stat_table(i)) != NULL; i++)
		for (r = 0; r < t->nrows; r++)
			printf("    %-24s STACKPROF:%u:%u\n", t->rows[r].name, t->cluster,
			       t->rows[r].item);
	printf("}\n");
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "help") == 0)
		print_help();
	else if (argc == 2 && strcmp(argv[1], "pmns") == 0)
		print_pmns();
	else {
		fprintf(stderr, "usage: %s help|pmns\n", argv[0]);
		return 2;
	}
	return ferror(stdout) || fflush(stdout) != 0 ? 1 : 0;
}
