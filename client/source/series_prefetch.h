/*
 * series_prefetch.h - each series' first /series/values answer, asked for
 * a series or two ahead of the reader on a connection of its own, so that
 * pmproxy's time to answer for one host overlaps the reader's decoding of
 * the host before (source_series.c; bench/series).
 */
#ifndef SERIES_PREFETCH_H
#define SERIES_PREFETCH_H

#include <stddef.h>
#include <cjson/cJSON.h>

struct series_prefetch;

/*
 * Start asking pmproxy at url for the queries (/series/values query
 * strings, in the order they will be taken; copied).  NULL when no thread
 * or connection can be had: the reader then asks for itself.
 */
struct series_prefetch *series_prefetch_start(const char *url, const char *const *queries,
					      int n);

/*
 * The answer to query i, waited for: taken once, in order (i = 0, 1, ...),
 * cJSON_Delete()d by the caller; NULL with err when pmproxy's answer was
 * an error.
 */
cJSON *series_prefetch_take(struct series_prefetch *p, int i, char *err, size_t errlen);

/* Stop asking, wait for the thread, free the answers not taken. */
void series_prefetch_stop(struct series_prefetch *p);

#endif /* SERIES_PREFETCH_H */
