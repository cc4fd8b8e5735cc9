/*
 * test_interval - stacks of one drain with the same names are merged per
 * (process, thread, stack), counts summed, first-seen order kept.
 */
#include <string.h>
#include "unit.h"
#include "agent/interval.h"

static char	seen[512];
static unsigned long long	total;

static void
collect(void *arg, const struct interval_stack *st)
{
	(void)arg;
	snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%d/%d %s %s %llu|",
		 (int)st->pid, (int)st->tid, st->thread, st->frames,
		 (unsigned long long)st->count);
	total += st->count;
}

int
main(void)
{
	struct interval_stacks	*iv = interval_new();

	CHECK(iv != NULL);
	CHECK_INT(interval_add(iv, 10, 10, "app", "app", "main;f", 3), 0);
	CHECK_INT(interval_add(iv, 10, 11, "app", "worker", "main;f", 1), 0);	/* other thread */
	CHECK_INT(interval_add(iv, 10, 10, "app", "app", "main;g", 2), 0);	/* other stack */
	CHECK_INT(interval_add(iv, 10, 10, "app", "app", "main;f", 4), 0);	/* merged */
	CHECK_INT(interval_add(iv, 20, 10, "other", "app", "main;f", 5), 0);	/* other pid */
	interval_flush(iv, collect, NULL);
	CHECK_STR(seen, "10/10 app main;f 7|10/11 worker main;f 1|10/10 app main;g 2|20/10 app main;f 5|");
	CHECK_INT(total, 15);

	/* flushed: the next drain starts empty */
	seen[0] = '\0';
	total = 0;
	CHECK_INT(interval_add(iv, 10, 10, "app", "app", "main;f", 1), 0);
	interval_flush(iv, collect, NULL);
	CHECK_STR(seen, "10/10 app main;f 1|");
	interval_free(iv);
	return unit_report("test_interval");
}
