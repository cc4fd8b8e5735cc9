/*
 * gaps.h - what a window is missing: the data_gaps (sample.h) a source
 * reported, kept until the window's profiles are written, and said the
 * same way in every place a profile says it (SVG subtitle, JSON
 * DESCRIPTION, index.html).
 */
#ifndef GAPS_H
#define GAPS_H

#include <stddef.h>
#include "membuf.h"
#include "sample.h"

/* Owned copies (host and why are the list's). */
struct gap_list {
	struct data_gap	*v;
	size_t		n, cap;
};

/* Keep a copy of g; 0 or -ENOMEM (list unchanged). */
int gap_list_add(struct gap_list *l, const struct data_gap *g);
/* Drop the gaps of host (NULL: every host) that ended at or before t. */
void gap_list_forget(struct gap_list *l, const char *host, double t);
void gap_list_free(struct gap_list *l);

/* At most this many gaps are told one by one; the rest are counted. */
#define GAPS_TOLD	4

/*
 * Append "no data 2026-11-30 12:00:01 - 12:00:04 UTC (why)" for each of
 * g[0..n), "; "-separated, to m.  Nothing when n is 0.
 */
void gaps_describe(struct membuf *m, const struct data_gap *g, size_t n);

#endif /* GAPS_H */
