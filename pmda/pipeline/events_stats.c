/*
 * events_stats.c - the figures of the event queue behind
 * stackprof.oncpu.stacks (stackprof.stats.*, PMID cluster 15).
 */
#include <stddef.h>
#include "lib/stat_table.h"
#include "events.h"

#define AT(f)	.offset = offsetof(struct event_stats, f)

static int
snapshot(void *handle, void *snap)
{
	if (handle == NULL)
		return -1;
	events_get_stats(handle, snap);
	return 0;
}

static const struct stat_def rows[] = {
	{ STAT_ROW(0, "event_records", U32, COUNTER, COUNT), AT(records),
	  .oneline = "Event records appended to the queue",
	  .help = "Counted whether or not a client reads stackprof.oncpu.stacks." },
	{ STAT_ROW(1, "event_bytes", U64, COUNTER, BYTES), AT(bytes),
	  .oneline = "Bytes of event records appended to the queue",
	  .help = "" },
	{ STAT_ROW(2, "event_queued_bytes", U64, INSTANT, BYTES), AT(queued_bytes),
	  .oneline = "Bytes of records waiting for slow clients",
	  .help = "" },
	{ STAT_ROW(3, "event_clients", U32, INSTANT, COUNT), AT(clients),
	  .oneline = "Client contexts reading stackprof.oncpu.stacks",
	  .help = "A context becomes a reader at its first fetch of stackprof.oncpu.stacks\n"
		"and sees every record appended after that exactly once." },
	{ STAT_ROW(4, "event_dropped", U64, COUNTER, COUNT), AT(dropped),
	  .oneline = "Event records dropped before every reader saw them",
	  .help = "The queue keeps at most 8 MB of records that some client has not fetched\n"
		"yet; beyond that the oldest are dropped and each client that missed them\n"
		"gets a \"missed N records\" record." },
};

const struct stat_table events_stat_table = {
	"events", 15, sizeof(struct event_stats), snapshot, STAT_ROWS(rows)
};
