/*
 * heatmap.c - the heat map's matrix (seconds x slices) and its per-second
 * stacks.  See heatmap.h for the model and docs/design.md ("Heat maps") for
 * how counter deltas are mapped to seconds.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "heatmap.h"

int
heatmap_init(struct heatmap *hm, unsigned rows)
{
	memset(hm, 0, sizeof(*hm));
	if (rows == 0 || rows > HEATMAP_MAX_ROWS)
		return -EINVAL;
	hm->rows = rows;
	/* node 0: the virtual root above every process */
	hm->nodes = calloc(1, sizeof(*hm->nodes));
	if (hm->nodes == NULL)
		return -ENOMEM;
	hm->nnodes = hm->nodes_cap = 1;
	return 0;
}

void
heatmap_free(struct heatmap *hm)
{
	size_t	i;

	for (i = 0; i < hm->ncols; i++)
		free(hm->stacks[i].v);
	for (i = 0; i < hm->nframes; i++)
		free(hm->frames[i]);
	free(hm->stacks);
	free(hm->cells);
	free(hm->covered);
	free(hm->frames);
	free(hm->frame_hash);
	free(hm->nodes);
	free(hm->node_hash);
	free(hm->stack_cache);
	free(hm->join);
	free(hm->prev);
	memset(hm, 0, sizeof(*hm));
}

/* ---- columns ---- */

static int
reserve_columns(struct heatmap *hm, size_t want)
{
	size_t	cap = hm->cols_cap ? hm->cols_cap : 64;
	void	*p;

	if (want <= hm->cols_cap)
		return 0;
	if (want > HEATMAP_MAX_CELLS / hm->rows)
		return -E2BIG;
	while (cap < want)
		cap *= 2;
	if (cap > HEATMAP_MAX_CELLS / hm->rows)
		cap = HEATMAP_MAX_CELLS / hm->rows;
	if ((p = realloc(hm->cells, cap * hm->rows * sizeof(*hm->cells))) == NULL)
		return -ENOMEM;
	hm->cells = p;
	if ((p = realloc(hm->covered, cap * hm->rows)) == NULL)
		return -ENOMEM;
	hm->covered = p;
	if ((p = realloc(hm->stacks, cap * sizeof(*hm->stacks))) == NULL)
		return -ENOMEM;
	hm->stacks = p;
	hm->cols_cap = cap;
	return 0;
}

/* Make k empty columns at index at (shifting the later ones right). */
static void
open_columns(struct heatmap *hm, size_t at, size_t k)
{
	size_t	r = hm->rows, tail = hm->ncols - at;

	memmove(hm->cells + (at + k) * r, hm->cells + at * r, tail * r * sizeof(*hm->cells));
	memmove(hm->covered + (at + k) * r, hm->covered + at * r, tail * r);
	memmove(hm->stacks + at + k, hm->stacks + at, tail * sizeof(*hm->stacks));
	memset(hm->cells + at * r, 0, k * r * sizeof(*hm->cells));
	memset(hm->covered + at * r, 0, k * r);
	memset(hm->stacks + at, 0, k * sizeof(*hm->stacks));
	hm->ncols += k;
}

/* The column of second sec, growing the matrix either way as needed. */
static int
column_of(struct heatmap *hm, int64_t sec, size_t *col)
{
	int64_t	k;
	int	sts;

	if (hm->ncols == 0)
		hm->first_sec = sec;
	if (sec < hm->first_sec) {
		k = hm->first_sec - sec;
		if ((uint64_t)k > HEATMAP_MAX_CELLS)
			return -E2BIG;
		if ((sts = reserve_columns(hm, hm->ncols + (size_t)k)) < 0)
			return sts;
		open_columns(hm, 0, (size_t)k);
		hm->first_sec = sec;
	} else if (sec - hm->first_sec >= (int64_t)hm->ncols) {
		k = sec - hm->first_sec + 1 - (int64_t)hm->ncols;
		if ((uint64_t)k > HEATMAP_MAX_CELLS)
			return -E2BIG;
		if ((sts = reserve_columns(hm, hm->ncols + (size_t)k)) < 0)
			return sts;
		open_columns(hm, hm->ncols, (size_t)k);
	}
	*col = (size_t)(sec - hm->first_sec);
	return 0;
}

static int
outside(const struct heatmap *hm, int64_t sec)
{
	return hm->have_window && (sec < hm->win_from || sec > hm->win_to);
}

int
heatmap_set_window(struct heatmap *hm, int64_t from_sec, int64_t to_sec)
{
	int	sts;

	if (from_sec > to_sec)
		return -EINVAL;
	if ((uint64_t)(to_sec - from_sec) >= HEATMAP_MAX_CELLS / hm->rows)
		return -E2BIG;
	if ((sts = heatmap_cover_range(hm, from_sec, to_sec)) < 0)
		return sts;
	hm->have_window = 1;
	hm->win_from = from_sec;
	hm->win_to = to_sec;
	return 0;
}

int
heatmap_add_cell(struct heatmap *hm, int64_t sec, unsigned row, uint64_t count)
{
	size_t	col;
	int	sts;

	if (row >= hm->rows)
		return -EINVAL;
	if (outside(hm, sec))
		return 0;
	if ((sts = column_of(hm, sec, &col)) < 0)
		return sts;
	hm->cells[col * hm->rows + row] += count;
	hm->covered[col * hm->rows + row] = 1;
	return 0;
}

int
heatmap_cover_range(struct heatmap *hm, int64_t from_sec, int64_t to_sec)
{
	size_t	col;
	int	sts;

	if (from_sec > to_sec)
		return 0;
	if ((sts = column_of(hm, from_sec, &col)) < 0)
		return sts;
	return column_of(hm, to_sec, &col);
}

/* ---- counters ---- */

static int set_baseline(struct heatmap *hm, double t, const uint64_t *values, unsigned n);

int
heatmap_counters_baseline(struct heatmap *hm, double t, const uint64_t *values, unsigned n)
{
	if (n == 0 || !isfinite(t))
		return -EINVAL;
	if (hm->have_prev && n != hm->prev_n)
		hm->resets++;
	return set_baseline(hm, t, values, n);
}

static int
set_baseline(struct heatmap *hm, double t, const uint64_t *values, unsigned n)
{
	if (n != hm->prev_n || hm->prev == NULL) {
		uint64_t *p = realloc(hm->prev, n * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		hm->prev = p;
		hm->prev_n = n;
	}
	memcpy(hm->prev, values, n * sizeof(*values));
	hm->prev_t = t;
	hm->have_prev = 1;
	return 0;
}

/*
 * Slice i of n, counted up to time t: the wall-clock second it belongs to is
 * the latest second s whose slice i (taken at its midpoint) is not after t.
 */
static int64_t
slice_second(double t, unsigned i, unsigned n)
{
	double	mid = (i + 0.5) / n;
	int64_t	s = (int64_t)floor(t);

	if ((double)s + mid > t)
		s--;
	return s;
}

static int
add_slice(struct heatmap *hm, int64_t sec, unsigned i, unsigned n, uint64_t d)
{
	unsigned	row = (unsigned)((i + 0.5) * hm->rows / n);
	unsigned	lo = (unsigned)((uint64_t)i * hm->rows / n);
	unsigned	hi = (unsigned)((uint64_t)(i + 1) * hm->rows / n);
	size_t		col;
	int		sts;

	if (outside(hm, sec))
		return 0;
	if ((sts = heatmap_add_cell(hm, sec, row, d)) < 0)
		return sts;
	/* a coarser source slice covers every finer row inside it */
	if ((sts = column_of(hm, sec, &col)) < 0)
		return sts;
	for (; lo < hi; lo++)
		hm->covered[col * hm->rows + lo] = 1;
	return 0;
}

int
heatmap_add_counters(struct heatmap *hm, double t, const uint64_t *values, unsigned n)
{
	unsigned	i;
	int		sts;

	if (n == 0 || !isfinite(t))
		return -EINVAL;
	if (!hm->have_prev || n != hm->prev_n) {
		if (hm->have_prev)
			hm->resets++;
		return set_baseline(hm, t, values, n);
	}
	if (t <= hm->prev_t)		/* the same fetch again, or out of order */
		return 0;
	for (i = 0; i < n; i++) {
		if (values[i] < hm->prev[i]) {	/* PMDA restarted: counters reset */
			hm->resets++;
			return set_baseline(hm, t, values, n);
		}
	}
	if (t - hm->prev_t > 1.05)
		hm->long_deltas++;
	for (i = 0; i < n; i++) {
		sts = add_slice(hm, slice_second(t, i, n), i, n, values[i] - hm->prev[i]);
		if (sts < 0)
			return sts;
	}
	return set_baseline(hm, t, values, n);
}

/* ---- stacks ---- */

static uint64_t
hash_bytes(const char *s, size_t len)
{
	uint64_t	h = 1469598103934665603ULL;	/* FNV-1a */

	while (len--) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t
hash_pair(uint32_t a, uint32_t b)
{
	uint64_t	x = (uint64_t)a << 32 | b;	/* splitmix64's finalizer */

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Grow an open-addressing table of index+1 slots; rehash with key(). */
static int
rehash(uint32_t **tab, size_t *cap, size_t used,
       uint64_t (*key)(const struct heatmap *, uint32_t), const struct heatmap *hm)
{
	size_t		ncap = *cap ? *cap * 2 : 1024, i, j;
	uint32_t	*nt;

	if (used * 2 < *cap)
		return 0;
	if ((nt = calloc(ncap, sizeof(*nt))) == NULL)
		return -ENOMEM;
	for (i = 0; i < *cap; i++) {
		if ((*tab)[i] == 0)
			continue;
		for (j = key(hm, (*tab)[i] - 1) & (ncap - 1); nt[j]; j = (j + 1) & (ncap - 1))
			;
		nt[j] = (*tab)[i];
	}
	free(*tab);
	*tab = nt;
	*cap = ncap;
	return 0;
}

static uint64_t
frame_key(const struct heatmap *hm, uint32_t i)
{
	return hash_bytes(hm->frames[i], strlen(hm->frames[i]));
}

static uint64_t
node_key(const struct heatmap *hm, uint32_t i)
{
	return hash_pair(hm->nodes[i].parent, hm->nodes[i].frame);
}

static int
intern_frame(struct heatmap *hm, const char *name, size_t len, uint32_t *id)
{
	size_t	j;
	char	*copy;
	int	sts;

	if ((sts = rehash(&hm->frame_hash, &hm->frame_hash_cap, hm->nframes, frame_key, hm)) < 0)
		return sts;
	for (j = hash_bytes(name, len) & (hm->frame_hash_cap - 1); hm->frame_hash[j];
	     j = (j + 1) & (hm->frame_hash_cap - 1)) {
		const char *f = hm->frames[hm->frame_hash[j] - 1];
		if (strncmp(f, name, len) == 0 && f[len] == '\0') {
			*id = hm->frame_hash[j] - 1;
			return 0;
		}
	}
	if (hm->nframes == hm->frames_cap) {
		size_t	cap = hm->frames_cap ? hm->frames_cap * 2 : 256;
		char	**p = realloc(hm->frames, cap * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		hm->frames = p;
		hm->frames_cap = cap;
	}
	if ((copy = strndup(name, len)) == NULL)
		return -ENOMEM;
	hm->frames[hm->nframes] = copy;
	*id = (uint32_t)hm->nframes++;
	hm->frame_hash[j] = *id + 1;
	return 0;
}

static int
child_node(struct heatmap *hm, uint32_t parent, uint32_t frame, uint32_t *id)
{
	size_t	j;
	int	sts;

	if ((sts = rehash(&hm->node_hash, &hm->node_hash_cap, hm->nnodes, node_key, hm)) < 0)
		return sts;
	for (j = hash_pair(parent, frame) & (hm->node_hash_cap - 1); hm->node_hash[j];
	     j = (j + 1) & (hm->node_hash_cap - 1)) {
		const struct heatmap_node *nd = &hm->nodes[hm->node_hash[j] - 1];
		if (nd->parent == parent && nd->frame == frame) {
			*id = hm->node_hash[j] - 1;
			return 0;
		}
	}
	if (hm->nnodes == hm->nodes_cap) {
		size_t	cap = hm->nodes_cap * 2;
		struct heatmap_node *p = realloc(hm->nodes, cap * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		hm->nodes = p;
		hm->nodes_cap = cap;
	}
	hm->nodes[hm->nnodes].parent = parent;
	hm->nodes[hm->nnodes].frame = frame;
	*id = (uint32_t)hm->nnodes++;
	hm->node_hash[j] = *id + 1;
	return 0;
}

static int
column_append(struct heatmap_column_stacks *c, uint32_t node, uint64_t count)
{
	if (c->n == c->cap) {
		size_t	cap = c->cap ? c->cap * 2 : 16;
		struct heatmap_entry *p = realloc(c->v, cap * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		c->v = p;
		c->cap = cap;
	}
	c->v[c->n].node = node;
	c->v[c->n].count = count;
	c->n++;
	return 0;
}

/* ---- whole-stack cache ---- */

/* Does node's path, root first, spell frames "a;b;c" (len bytes)? */
static int
node_is_folded(const struct heatmap *hm, uint32_t node, const char *s, size_t len)
{
	size_t	end = len;

	for (; node != 0; node = hm->nodes[node].parent) {
		const char	*f = hm->frames[hm->nodes[node].frame];
		size_t		flen = strlen(f);

		/* a frame holding ';' came from a path: the folded text differs */
		if (flen > end || memcmp(s + end - flen, f, flen) != 0 || strchr(f, ';'))
			return 0;
		end -= flen;
		if (hm->nodes[node].parent != 0) {
			if (end == 0 || s[end - 1] != ';')
				return 0;
			end--;
		}
	}
	return end == 0;
}

static int
node_is_path(const struct heatmap *hm, uint32_t node, const char *const *path, size_t n)
{
	for (; node != 0 && n > 0; node = hm->nodes[node].parent)
		if (strcmp(hm->frames[hm->nodes[node].frame], path[--n]) != 0)
			return 0;
	return node == 0 && n == 0;
}

/* Slot for hash: the cached node, or where to put it (node 0). */
static struct heatmap_stack_slot *
cache_slot(struct heatmap *hm, uint64_t hash, const char *folded, size_t len,
	   const char *const *path, size_t n)
{
	size_t	mask = hm->stack_cache_cap - 1, j;

	for (j = hash & mask; hm->stack_cache[j].node; j = (j + 1) & mask) {
		struct heatmap_stack_slot *e = &hm->stack_cache[j];
		if (e->hash == hash && (folded ? node_is_folded(hm, e->node, folded, len)
					       : node_is_path(hm, e->node, path, n)))
			return e;
	}
	return &hm->stack_cache[j];
}

static int
cache_grow(struct heatmap *hm)
{
	size_t	cap = hm->stack_cache_cap ? hm->stack_cache_cap * 2 : 1024, i, j;
	struct heatmap_stack_slot *t;

	if (hm->stack_cache_used * 2 < hm->stack_cache_cap)
		return 0;
	if ((t = calloc(cap, sizeof(*t))) == NULL)
		return -ENOMEM;
	for (i = 0; i < hm->stack_cache_cap; i++) {
		if (hm->stack_cache[i].node == 0)
			continue;
		for (j = hm->stack_cache[i].hash & (cap - 1); t[j].node; j = (j + 1) & (cap - 1))
			;
		t[j] = hm->stack_cache[i];
	}
	free(hm->stack_cache);
	hm->stack_cache = t;
	hm->stack_cache_cap = cap;
	return 0;
}

/* ---- adding stacks ---- */

static int
walk_path(struct heatmap *hm, const char *const *path, size_t n, uint32_t *node)
{
	uint32_t	frame;
	size_t		i;
	int		sts;

	for (*node = 0, i = 0; i < n; i++) {
		if ((sts = intern_frame(hm, path[i], strlen(path[i]), &frame)) < 0)
			return sts;
		if ((sts = child_node(hm, *node, frame, node)) < 0)
			return sts;
	}
	return 0;
}

static int
walk_folded(struct heatmap *hm, const char *p, uint32_t *node)
{
	const char	*e;
	uint32_t	frame;
	int		sts;

	for (*node = 0;; p = e + 1) {
		e = strchr(p, ';');
		if ((sts = intern_frame(hm, p, e ? (size_t)(e - p) : strlen(p), &frame)) < 0)
			return sts;
		if ((sts = child_node(hm, *node, frame, node)) < 0)
			return sts;
		if (e == NULL)
			return 0;
	}
}

/* A word at a time: whole stacks are hundreds of bytes. */
static uint64_t
hash_stack(const char *s, size_t len)
{
	uint64_t	h = 0x9E3779B97F4A7C15ULL ^ len, w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	w = 0;
	memcpy(&w, s, len);
	h = (h ^ w) * 0x94d049bb133111ebULL;
	return h ^ (h >> 29);
}

/* path joined with ';' into hm->join, for hashing */
static int
join_path(struct heatmap *hm, const char *const *path, size_t n, size_t *len)
{
	size_t	i, need = 1, k;

	for (i = 0; i < n; i++)
		need += strlen(path[i]) + 1;
	if (need > hm->join_cap) {
		char *p = realloc(hm->join, need);
		if (p == NULL)
			return -ENOMEM;
		hm->join = p;
		hm->join_cap = need;
	}
	for (i = 0, *len = 0; i < n; i++) {
		if (i)
			hm->join[(*len)++] = ';';
		k = strlen(path[i]);
		memcpy(hm->join + *len, path[i], k);
		*len += k;
	}
	return 0;
}

/* Find or make the node of a stack given either as folded text or as a path. */
static int
stack_node(struct heatmap *hm, const char *folded, const char *const *path, size_t n,
	   uint32_t *node)
{
	struct heatmap_stack_slot *slot;
	uint64_t	hash;
	size_t		len = 0;
	int		sts;

	if (folded)
		len = strlen(folded);
	else if ((sts = join_path(hm, path, n, &len)) < 0)
		return sts;
	/* the same bytes whichever form: both find each other */
	hash = hash_stack(folded ? folded : hm->join, len);
	if ((sts = cache_grow(hm)) < 0)
		return sts;
	slot = cache_slot(hm, hash, folded, len, path, n);
	if (slot->node) {
		*node = slot->node;
		return 0;
	}
	sts = folded ? walk_folded(hm, folded, node) : walk_path(hm, path, n, node);
	if (sts < 0)
		return sts;
	slot->hash = hash;
	slot->node = *node;
	hm->stack_cache_used++;
	return 0;
}

int
heatmap_add_stack(struct heatmap *hm, int64_t sec, const char *const *path,
		  size_t n, uint64_t count)
{
	uint32_t	node;
	size_t		col;
	int		sts;

	if (n == 0)
		return -EINVAL;
	if (outside(hm, sec))
		return 0;
	if ((sts = stack_node(hm, NULL, path, n, &node)) < 0 ||
	    (sts = column_of(hm, sec, &col)) < 0)
		return sts;
	return column_append(&hm->stacks[col], node, count);
}

int
heatmap_add_folded(struct heatmap *hm, int64_t sec, const char *frames, uint64_t count)
{
	uint32_t	node;
	size_t		col;
	int		sts;

	if (*frames == '\0')
		return -EINVAL;
	if (outside(hm, sec))
		return 0;
	if ((sts = stack_node(hm, frames, NULL, 0, &node)) < 0 ||
	    (sts = column_of(hm, sec, &col)) < 0)
		return sts;
	return column_append(&hm->stacks[col], node, count);
}

int64_t
heatmap_record_second(double t, double interval)
{
	return (int64_t)floor(t - interval / 2);
}

static int
by_node(const void *a, const void *b)
{
	const struct heatmap_entry *x = a, *y = b;

	return x->node < y->node ? -1 : x->node > y->node;
}

void
heatmap_finish(struct heatmap *hm)
{
	size_t	c, i, o;

	for (c = 0; c < hm->ncols; c++) {
		struct heatmap_column_stacks *s = &hm->stacks[c];
		if (s->merged == s->n)
			continue;
		qsort(s->v, s->n, sizeof(*s->v), by_node);
		for (i = o = 0; i < s->n; i++) {
			if (o > 0 && s->v[o - 1].node == s->v[i].node)
				s->v[o - 1].count += s->v[i].count;
			else
				s->v[o++] = s->v[i];
		}
		s->n = s->merged = o;
	}
}

/* ---- summaries and ranges ---- */

uint64_t
heatmap_max_cell(const struct heatmap *hm)
{
	uint64_t	m = 0;
	size_t		i;

	for (i = 0; i < hm->ncols * hm->rows; i++)
		if (hm->cells[i] > m)
			m = hm->cells[i];
	return m;
}

uint64_t
heatmap_total(const struct heatmap *hm)
{
	uint64_t	t = 0;
	size_t		i;

	for (i = 0; i < hm->ncols * hm->rows; i++)
		t += hm->cells[i];
	return t;
}

uint64_t
heatmap_stack_total(const struct heatmap *hm)
{
	uint64_t	t = 0;
	size_t		c, i;

	for (c = 0; c < hm->ncols; c++)
		for (i = 0; i < hm->stacks[c].n; i++)
			t += hm->stacks[c].v[i].count;
	return t;
}

/* Call visit with node's path, root first. */
static int
visit_node(const struct heatmap *hm, uint32_t node, uint64_t count,
	   const char **path, heatmap_visit_fn visit, void *arg)
{
	size_t		depth = 0, i;
	uint32_t	n;

	for (n = node; n != 0; n = hm->nodes[n].parent)
		depth++;
	for (n = node, i = depth; n != 0; n = hm->nodes[n].parent)
		path[--i] = hm->frames[hm->nodes[n].frame];
	return visit(path, depth, count, arg);
}

long
heatmap_range_stacks(const struct heatmap *hm, size_t col_from, size_t col_to,
		     heatmap_visit_fn visit, void *arg)
{
	uint64_t	*sum;
	const char	**path;
	size_t		c, i;
	long		distinct = 0;
	int		sts = 0;

	if (col_to >= hm->ncols)
		col_to = hm->ncols ? hm->ncols - 1 : 0;
	sum = calloc(hm->nnodes, sizeof(*sum));
	path = calloc(hm->nnodes, sizeof(*path));	/* a path is at most every node */
	if (sum == NULL || path == NULL) {
		free(sum);
		free(path);
		return -ENOMEM;
	}
	for (c = col_from; c <= col_to && c < hm->ncols; c++)
		for (i = 0; i < hm->stacks[c].n; i++)
			sum[hm->stacks[c].v[i].node] += hm->stacks[c].v[i].count;
	for (i = 1; i < hm->nnodes && sts == 0; i++) {
		if (sum[i] == 0)
			continue;
		distinct++;
		sts = visit_node(hm, (uint32_t)i, sum[i], path, visit, arg);
	}
	free(sum);
	free(path);
	return sts < 0 ? sts : distinct;
}
