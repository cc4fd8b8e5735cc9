/*
 * heatmaps.c - heat maps by host (heatmaps.h).  A heat map starts with the
 * slice count of its host's first counters (50 if stacks come first); a
 * record goes to the second the middle of its drain interval falls in.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "heatmap.h"
#include "heatmaps.h"
#include "stack_path.h"

#define DEFAULT_ROWS	50

struct host_heat {
	char		*host;
	struct heatmap	*hm;		/* NULL until the host's first data */
	double		drain;		/* seconds a record covers, from its counters */
	double		start, end;	/* the window: archives' from begin */
	int		windowed;	/* an archive's: its columns are fixed */
};

struct heatmaps {
	const struct selection	*filter;
	struct host_heat	*v;
	size_t			n, cap;
	double			live_start;	/* the open live window's start */
	struct stack_path	path;
};

struct heatmaps *
heatmaps_new(const struct selection *filter)
{
	struct heatmaps	*h = calloc(1, sizeof(*h));

	if (h != NULL)
		h->filter = filter;
	return h;
}

static void
map_free(struct host_heat *e)
{
	if (e->hm != NULL) {
		heatmap_free(e->hm);
		free(e->hm);
		e->hm = NULL;
	}
}

void
heatmaps_free(struct heatmaps *h)
{
	size_t	i;

	if (h == NULL)
		return;
	for (i = 0; i < h->n; i++) {
		map_free(&h->v[i]);
		free(h->v[i].host);
	}
	free(h->v);
	stack_path_free(&h->path);
	free(h);
}

static struct host_heat *
host_entry(struct heatmaps *h, const char *host)
{
	struct host_heat	*e;
	size_t			i;

	for (i = 0; i < h->n; i++)
		if (strcmp(h->v[i].host, host) == 0)
			return &h->v[i];
	if (array_reserve(&h->v, &h->cap, h->n + 1) < 0)
		return NULL;
	e = &h->v[h->n];
	memset(e, 0, sizeof(*e));
	if ((e->host = strdup(host)) == NULL)
		return NULL;
	e->drain = 1.0;
	e->start = h->live_start;
	h->n++;
	return e;
}

/* The host's heat map, made with rows slices when it has none yet. */
static int
ensure_map(struct host_heat *e, unsigned rows)
{
	int	sts;

	if (e->hm != NULL)
		return 0;
	if ((e->hm = calloc(1, sizeof(*e->hm))) == NULL)
		return -ENOMEM;
	if ((sts = heatmap_init(e->hm, rows)) == 0 && e->windowed)
		sts = heatmap_set_window(e->hm, (int64_t)floor(e->start),
					 (int64_t)ceil(e->end) - 1);
	if (sts < 0)
		map_free(e);
	return sts;
}

int
heatmaps_begin(struct heatmaps *h, const struct window *w)
{
	struct host_heat	*e;
	size_t			i;

	if (w->host == NULL) {
		h->live_start = w->start;
		for (i = 0; i < h->n; i++)
			h->v[i].start = w->start;
		return 0;
	}
	if ((e = host_entry(h, w->host)) == NULL)
		return -ENOMEM;
	map_free(e);
	e->start = w->start;
	e->end = w->end;
	e->windowed = 1;
	return 0;
}

int
heatmaps_counters(void *arg, const struct heat_counters *c)
{
	struct heatmaps		*h = arg;
	struct host_heat	*e = host_entry(h, c->host);
	int			sts;

	if (e == NULL)
		return -ENOMEM;
	if ((sts = ensure_map(e, c->n)) < 0)
		return sts;
	e->drain = c->drain;
	if (c->restart)
		return heatmap_counters_baseline(e->hm, c->time, c->values, c->n);
	return heatmap_add_counters(e->hm, c->time, c->values, c->n);
}

int
heatmaps_add(void *arg, const struct stack_sample *s)
{
	struct heatmaps		*h = arg;
	struct host_heat	*e;
	int			sts;

	if (s->count == 0 || (h->filter && !selection_wants(h->filter, s)))
		return 0;
	if ((e = host_entry(h, s->host)) == NULL ||
	    stack_path_split(&h->path, s, ROOT_PROCESS) < 0)
		return -ENOMEM;
	if ((sts = ensure_map(e, DEFAULT_ROWS)) < 0)
		return sts;
	return heatmap_add_stack(e->hm, heatmap_record_second(s->time, e->drain),
				 h->path.v, h->path.n, s->count);
}

/* A live host's next map: same rows, the counters' baseline carried over. */
static int
next_map(struct host_heat *e, const struct heatmap *old, double start)
{
	int	sts;

	e->start = start;
	if ((sts = ensure_map(e, old->rows)) < 0 || !old->have_prev)
		return sts;
	return heatmap_counters_baseline(e->hm, old->prev_t, old->prev, old->prev_n);
}

static int
take_one(struct host_heat *e, const struct window *w, struct profile *p)
{
	struct heatmap	*hm;
	int		sts;

	if ((sts = ensure_map(e, DEFAULT_ROWS)) < 0)
		return sts;
	hm = e->hm;
	e->hm = NULL;
	heatmap_finish(hm);
	memset(p, 0, sizeof(*p));
	p->kind = PROFILE_HEATMAP;
	p->heatmap = hm;
	p->start = e->start;
	p->end = e->windowed ? e->end : w->end;
	p->samples = heatmap_total(hm);
	p->stack_samples = heatmap_stack_total(hm);
	if ((p->host = strdup(e->host)) == NULL || (p->name = strdup("Total")) == NULL)
		return -ENOMEM;
	return e->windowed ? 0 : next_map(e, hm, w->end);
}

static int
by_host(const void *a, const void *b)
{
	return strcmp(((const struct profile *)a)->host, ((const struct profile *)b)->host);
}

int
heatmaps_take(struct heatmaps *h, const struct window *w, struct profile **p, size_t *n)
{
	struct profile	*out = calloc(h->n + 1, sizeof(*out));
	size_t		i, k = 0;
	int		sts = 0;

	if (out == NULL)
		return -ENOMEM;
	for (i = 0; i < h->n && sts == 0; i++)
		if (w->host == NULL || strcmp(w->host, h->v[i].host) == 0)
			sts = take_one(&h->v[i], w, &out[k++]);
	if (sts < 0) {
		profiles_free(out, k);
		return sts;
	}
	qsort(out, k, sizeof(*out), by_host);
	*p = out;
	*n = k;
	return 0;
}
