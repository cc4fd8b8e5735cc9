/*
 * view_values.h - an archive range for live.html (docs/design.md "Live
 * page"): the window's records kept with their drain times, and the
 * heat map's per-drain slices, written as the history values the page
 * decodes from pmproxy (docs/design.md "History value"), so the page shows
 * a past range as it shows a live host.
 */
#ifndef VIEW_VALUES_H
#define VIEW_VALUES_H

#include <stddef.h>
#include "common/membuf.h"
#include "common/sample.h"
#include "profile/select.h"

struct view_values;

struct view_values *view_values_new(void);
void view_values_free(struct view_values *v);

/* Keep one record of the open window.  0, -ENOMEM, or 1 for the first
 * record past the bound a window keeps: then its files say so, empty. */
int view_values_add(struct view_values *v, const struct stack_sample *s);
/* Keep one fetch of the heat-map counters (a baseline when c->restart). */
int view_values_heat(struct view_values *v, const struct heat_counters *c);
/* Drop what host's window held (NULL: every host's), once it is written. */
void view_values_forget(struct view_values *v, const char *host);

/*
 * The view file of flame profile p (its host; its pid and gen when it has
 * a pid) as JSON: {"version":1,"host","event","start","end","gaps":[{"start",
 * "end","why"}],"values":[TEXT...]}, a value per drain time, ascending,
 * each defining the ids it is the first to use; "error" and no values
 * when the window held too many records.  0 or -ENOMEM.
 */
int view_values_render(const struct view_values *v, const struct profile *p, const char *event,
		       const struct data_gap *g, size_t ng, struct membuf *out);

#endif /* VIEW_VALUES_H */
