/*
 * index_row.h - one row of index.json as read back, checked whole before
 * it joins the index.  The file comes from a directory or a bucket that
 * others may write, so a row is either one pmflame could have written or
 * it is dropped: never clamped into a row the page would then link to or
 * print (a path of "../../../etc/passwd", an end of 1e300).
 */
#ifndef INDEX_ROW_H
#define INDEX_ROW_H

#include "site.h"

struct cJSON;

/*
 * Read item into *e, its gaps into g (room for SITE_MAX_GAPS; e->gaps is
 * g); e's strings point into item.  0, or -1 with *why saying which field
 * breaks which rule (a constant; no text of the row is in it).
 */
int index_row_read(const struct cJSON *item, struct site_entry *e, struct data_gap *g,
		   const char **why);

#endif /* INDEX_ROW_H */
