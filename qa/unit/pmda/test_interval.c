/*
 * test_interval - stacks of one drain with the same names are merged per
 * (process, thread, stack), counts summed, first-seen order kept.
 */
#include <string.h>
#include "unit.h"
#include "pipeline/interval.h"

static char	seen[512];
static unsigned long long	total;

static void
collect(void *arg, const struct interval_stack *st)
{
	(void)arg;
	snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%d.%u/%d %s %s %llu|",
		 (int)st->pid, st->gen, (int)st->tid, st->thread, st->frames,
		 (unsigned long long)st->count);
	total += st->count;
}

int
main(void)
{
	struct interval_stacks	*iv = interval_new();

	CHECK(iv != NULL);
	CHECK_INT(interval_add(iv, 10, 0, 10, "app", "app", "main;f", 3), 0);
	CHECK_INT(interval_add(iv, 10, 0, 11, "app", "worker", "main;f", 1), 0);	/* other thread */
	CHECK_INT(interval_add(iv, 10, 0, 10, "app", "app", "main;g", 2), 0);	/* other stack */
	CHECK_INT(interval_add(iv, 10, 0, 10, "app", "app", "main;f", 4), 0);	/* merged */
	CHECK_INT(interval_add(iv, 20, 0, 10, "other", "app", "main;f", 5), 0);	/* other pid */
	/* the PID's next process (same tid, names and stack): not merged */
	CHECK_INT(interval_add(iv, 10, 1, 10, "app", "app", "main;f", 6), 0);
	interval_flush(iv, collect, NULL);
	CHECK_STR(seen, "10.0/10 app main;f 7|10.0/11 worker main;f 1|10.0/10 app main;g 2|"
		  "20.0/10 app main;f 5|10.1/10 app main;f 6|");
	CHECK_INT(total, 21);

	/* flushed: the next drain starts empty */
	seen[0] = '\0';
	total = 0;
	CHECK_INT(interval_add(iv, 10, 0, 10, "app", "app", "main;f", 1), 0);
	interval_flush(iv, collect, NULL);
	CHECK_STR(seen, "10.0/10 app main;f 1|");
	interval_free(iv);
	return unit_report("test_interval");
}
