/*
 * gaps.c - the gaps a window is missing, and the one way they are said
 * (gaps.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "gaps.h"
#include "util.h"

int
gap_list_add(struct gap_list *l, const struct data_gap *g)
{
	struct data_gap	c = *g;

	if (array_reserve(&l->v, &l->cap, l->n + 1) < 0)
		return -ENOMEM;
	c.host = g->host ? strdup(g->host) : NULL;
	c.why = strdup(g->why ? g->why : "");
	if ((g->host && c.host == NULL) || c.why == NULL) {
		free((char *)c.host);
		free((char *)c.why);
		return -ENOMEM;
	}
	l->v[l->n++] = c;
	return 0;
}

static void
gap_free(struct data_gap *g)
{
	free((char *)g->host);
	free((char *)g->why);
}

void
gap_list_forget(struct gap_list *l, const char *host, double t)
{
	size_t	i, k = 0;

	for (i = 0; i < l->n; i++) {
		struct data_gap	*g = &l->v[i];
		int		ours = host == NULL || (g->host && strcmp(g->host, host) == 0);

		if (ours && g->end <= t)
			gap_free(g);
		else
			l->v[k++] = *g;
	}
	l->n = k;
}

void
gap_list_free(struct gap_list *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		gap_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void
gaps_describe(struct membuf *m, const struct data_gap *g, size_t n)
{
	char	from[40], to[40];
	size_t	i;

	for (i = 0; i < n && i < GAPS_TOLD; i++) {
		utc_strftime(g[i].start, "%Y-%m-%d %H:%M:%S", from, sizeof(from));
		utc_strftime(g[i].end, floor(g[i].start / 86400) == floor(g[i].end / 86400) ?
			     "%H:%M:%S" : "%Y-%m-%d %H:%M:%S", to, sizeof(to));
		membuf_printf(m, "%sno data %s - %s UTC (%s)", i ? "; " : "", from, to, g[i].why);
	}
	if (n > GAPS_TOLD)
		membuf_printf(m, "; %zu more gaps", n - GAPS_TOLD);
}
