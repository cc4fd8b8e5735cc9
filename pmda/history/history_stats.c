/*
 * history_stats.c - the on-CPU history's figures (stackprof.stats.*, PMID
 * cluster 14): its dictionaries, the batches kept for clients and lost.
 */
#include <stddef.h>
#include "lib/stat_table.h"
#include "history.h"

#define AT(f)	.offset = offsetof(struct history_stats, f)

static int
snapshot(void *handle, void *snap)
{
	if (handle == NULL)
		return -1;
	history_get_stats(handle, snap);
	return 0;
}

static const struct stat_def rows[] = {
	{ STAT_ROW(0, "history_threads", U64, INSTANT, COUNT), AT(threads),
	  .oneline = "Threads numbered in the on-CPU history now",
	  .help = "Thread ids (PID, TID, names) that the history's dictionary holds; one not\n"
		"sampled for 10 minutes is forgotten and numbered anew if it comes back." },
	{ STAT_ROW(1, "history_stacks", U64, INSTANT, COUNT), AT(stacks),
	  .oneline = "Stacks numbered in the on-CPU history now",
	  .help = "Distinct folded stacks the history's dictionary holds; one not sampled for\n"
		"10 minutes is forgotten and numbered anew if it comes back." },
	{ STAT_ROW(2, "history_dropped", U64, COUNTER, COUNT), AT(dropped),
	  .oneline = "History drains dropped before every reader saw them",
	  .help = "The history keeps at most 8 MB of drains some client has not fetched yet;\n"
		"beyond that the oldest go and that client's next value says \"missed N\"." },
	{ STAT_ROW(3, "history_lost", U64, COUNTER, COUNT), AT(lost),
	  .oneline = "Stacks left out of the history for want of memory",
	  .help = "A stack the history could not number or queue when memory ran out; its\n"
		"samples are still in the records, the folded text and the counters." },
	{ STAT_ROW(4, "history_queued_bytes", U64, INSTANT, BYTES), AT(queued_bytes),
	  .oneline = "Bytes of history drains kept for clients",
	  .help = "Drains some client of stackprof.oncpu.history has not fetched yet; bounded\n"
		"at 8 MB (see stackprof.stats.history_dropped)." },
	{ STAT_ROW(5, "history_bytes", U64, COUNTER, BYTES), AT(text_bytes),
	  .oneline = "Bytes of stackprof.oncpu.history text served",
	  .help = "Summed over every client and fetch: what pmlogger writes of the history,\n"
		"plus the value headers of the archive." },
};

const struct stat_table history_stat_table = {
	"history", 14, sizeof(struct history_stats), snapshot, STAT_ROWS(rows)
};
