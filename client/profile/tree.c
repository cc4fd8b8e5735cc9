/*
 * tree.c - merge stacks into a function/node tree (see tree.h).
 *
 * Built for large profiles (1M samples, 100k distinct stacks, 3M nodes):
 *  - each distinct (name, type) is interned once (lib/intern.h), and a
 *    stack becomes its function ids, appended to one array;
 *  - a stack seen before is found whole by a hash of those ids and only
 *    adds its values (tree_index.c), so a long live run holds each
 *    distinct stack once;
 *  - a path added by name does not look up again the names it shares
 *    with the previous one (sorted stacks repeat most prefixes); frames a
 *    source split and hashed on a thread of its own are looked up with
 *    those hashes (flame_tree_add_framed);
 *  - no node exists until flame_tree_finish() sorts the stacks
 *    (tree_finish.c); a walk then derives the nodes (tree_walk.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "common/py_frame.h"
#include "tree_impl.h"

char
function_type_n(const char *name, size_t len, int is_root)
{
	if (is_root)
		return len == 5 && memcmp(name, "Total", 5) == 0 ? 'H' : 'P';
	if (len >= 4 && name[0] == '[' && name[2] == ']' && name[3] == ' ') {
		switch (name[1]) {
		case 'h': return 'H';
		case 'p': return 'P';
		case 't': return 'T';
		case 'k': return 'K';
		case 'c': return 'C';
		case 'l': return 'L';
		}
	}
	return len > 0 && name[0] == '[' ? '?' : 'A';
}

/* The same without a length: the tree types every frame it adds, and a
 * strlen each would cost more than the test itself. */
char
function_type(const char *name, int is_root)
{
	if (is_root)
		return strcmp(name, "Total") == 0 ? 'H' : 'P';
	if (name[0] == '[' && name[1] != '\0' && name[2] == ']' && name[3] == ' ')
		return function_type_n(name, 4, 0);
	return name[0] == '[' ? '?' : 'A';
}

struct flame_tree *
flame_tree_new(void)
{
	struct flame_tree	*t = calloc(1, sizeof(*t));

	if (t != NULL && tree_index_init(t) < 0) {
		flame_tree_free(t);
		return NULL;
	}
	return t;
}

void
flame_tree_free(struct flame_tree *t)
{
	if (t == NULL)
		return;
	tree_index_free(t);
	intern_free(&t->names);
	free(t->last);
	free(t->len_buf);
	free(t->cut_buf);
	free(t->frames);
	free(t->stacks);
	free(t->functions);
	free(t->cum_samples);
	free(t->cum_us);
	free(t->base);
	free(t->cum_base_samples);
	free(t->cum_base_us);
	free(t->next_lower);
	free(t);
}

void
flame_tree_set_object_leaves(struct flame_tree *t, int on)
{
	t->object_leaves = on;
}

/* How many leading names of path are those of the previous stack.  With
 * object leaves a last frame differs in type from the same name above it,
 * so neither stack's last frame is taken from the cache. */
static size_t
shared_prefix(const struct flame_tree *t, const char *const *path, const size_t *lens, size_t n)
{
	size_t	i = 0, limit = n < t->last_len ? n : t->last_len;

	if (t->object_leaves && limit > 0)
		limit--;
	while (i < limit && lens[i] == t->last[i].len &&
	       memcmp(path[i], t->last[i].name, lens[i]) == 0)
		i++;
	return i;
}

/* Every name of path[0 .. n) is there; lens[] their lengths, into len_buf
 * when the caller gave none. */
static int
path_lengths(struct flame_tree *t, const char *const *path, size_t n, const size_t **lens)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (path[i] == NULL)
			return -EINVAL;
	if (*lens != NULL)
		return 0;
	if (array_reserve(&t->len_buf, &t->len_cap, n) < 0)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		t->len_buf[i] = strlen(path[i]);
	*lens = t->len_buf;
	return 0;
}

/* The type of path's name i of n: the root's by its name, a last one 'O'
 * with object leaves, any other by its prefix. */
static char
path_type(const struct flame_tree *t, const char *name, size_t len, size_t i, size_t n)
{
	return t->object_leaves && i == n - 1 && i > 0 ? 'O' : function_type_n(name, len, i == 0);
}

static int
add_stack(struct flame_tree *t, const char *const *path, const size_t *lens, size_t n,
	  const struct tree_values *v, int baseline)
{
	size_t		first = t->nframes, shared, i;
	uint32_t	fid;
	int		sts;

	if (t->finished || n == 0 || n >= UINT32_MAX)
		return -EINVAL;
	if ((sts = path_lengths(t, path, n, &lens)) < 0)
		return sts;
	if (array_reserve(&t->last, &t->last_cap, n) < 0 ||
	    array_reserve(&t->frames, &t->frames_cap, first + n) < 0)
		return -ENOMEM;
	t->last_len = shared = shared_prefix(t, path, lens, n);
	for (i = 0; i < shared; i++)
		t->frames[first + i] = t->last[i].function;
	for (i = shared; i < n; i++) {
		if ((sts = tree_intern_function(t, path[i], lens[i],
						path_type(t, path[i], lens[i], i, n), &fid)) < 0)
			return sts;
		t->frames[first + i] = fid;
		t->last[i].name = intern_name(&t->names, fid);	/* in cache: just compared */
		t->last[i].len = lens[i];
		t->last[i].function = fid;
		t->last_len = i + 1;
	}
	return tree_commit_stack(t, n, v, baseline);
}

int
flame_tree_add(struct flame_tree *t, const char *const *path, size_t n,
	       uint64_t samples, uint64_t value_us)
{
	struct tree_values	v = { samples, value_us };

	return add_stack(t, path, NULL, n, &v, 0);
}

int
flame_tree_add_baseline(struct flame_tree *t, const char *const *path, size_t n,
			uint64_t samples, uint64_t value_us)
{
	struct tree_values	v = { samples, value_us };

	return add_stack(t, path, NULL, n, &v, 1);
}

int
flame_tree_add_n(struct flame_tree *t, const char *const *path, const size_t *lens, size_t n,
		 uint64_t samples, uint64_t value_us)
{
	struct tree_values	v = { samples, value_us };

	return add_stack(t, path, lens, n, &v, 0);
}

int
flame_tree_add_baseline_n(struct flame_tree *t, const char *const *path, const size_t *lens,
			  size_t n, uint64_t samples, uint64_t value_us)
{
	struct tree_values	v = { samples, value_us };

	return add_stack(t, path, lens, n, &v, 1);
}

/* The function of a frame a source split, name i of a path of n: as
 * stack_path_split names it (a Python frame's line cut unless lines). */
static int
intern_split(struct flame_tree *t, const char *name, size_t len, uint64_t hash, int lines,
	     size_t i, size_t n, uint32_t *fid)
{
	if (!lines && len > 0 && name[len - 1] == ')') {	/* perhaps Python */
		size_t	cut;

		if (array_reserve(&t->cut_buf, &t->cut_cap, len + 1) < 0)
			return -ENOMEM;
		memcpy(t->cut_buf, name, len);
		t->cut_buf[len] = '\0';
		if ((cut = py_frame_strip_line(t->cut_buf, len)) != len) {
			name = t->cut_buf;
			len = cut;
			hash = hash_bytes(name, len);
		}
	}
	return tree_intern_hashed(t, name, len, path_type(t, name, len, i, n), hash, fid);
}

int
flame_tree_add_framed(struct flame_tree *t, const char *const *path, const size_t *lens,
		      size_t n, const struct stack_frames *frames, int lines, uint64_t samples,
		      uint64_t value_us, int baseline)
{
	struct tree_values	v = { samples, value_us };
	size_t			first = t->nframes, total = n + frames->n, i;
	uint32_t		fid;
	int			sts;

	if (t->finished || n == 0 || total >= UINT32_MAX)
		return -EINVAL;
	if ((sts = path_lengths(t, path, n, &lens)) < 0)
		return sts;
	if (array_reserve(&t->frames, &t->frames_cap, first + total) < 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if ((sts = tree_intern_function(t, path[i], lens[i],
						path_type(t, path[i], lens[i], i, total), &fid)) < 0)
			return sts;
		t->frames[first + i] = fid;
	}
	for (i = 0; i < frames->n; i++) {
		if ((sts = intern_split(t, frames->names[i], frames->lens[i], frames->hashes[i],
					lines, n + i, total, &fid)) < 0)
			return sts;
		t->frames[first + n + i] = fid;
	}
	return tree_commit_stack(t, total, &v, baseline);
}

int
flame_tree_has_baseline(const struct flame_tree *t)
{
	return t->base != NULL;
}

void
flame_tree_normalize_baseline(struct flame_tree *t, int on)
{
	t->normalize = on;
}

/* ---- accessors -------------------------------------------------------- */

size_t
flame_tree_nnodes(const struct flame_tree *t)
{
	return t->nnodes;
}

size_t
flame_tree_nroots(const struct flame_tree *t)
{
	return t->nroots;
}

uint64_t
flame_tree_total_samples(const struct flame_tree *t)
{
	return t->cum_samples ? t->cum_samples[t->nstacks] : 0;
}

uint64_t
flame_tree_total_us(const struct flame_tree *t)
{
	return t->cum_us ? t->cum_us[t->nstacks] : 0;
}

uint64_t
flame_tree_base_total_samples(const struct flame_tree *t)
{
	return t->cum_base_samples ? t->cum_base_samples[t->nstacks] : 0;
}

uint64_t
flame_tree_base_total_us(const struct flame_tree *t)
{
	return t->cum_base_us ? t->cum_base_us[t->nstacks] : 0;
}

size_t
flame_tree_nfunctions(const struct flame_tree *t)
{
	return t->nfunctions;
}

const struct flame_function *
flame_tree_function(const struct flame_tree *t, size_t i)
{
	return i < t->nfunctions ? &t->functions[i] : NULL;
}

uint32_t
flame_tree_max_depth(const struct flame_tree *t)
{
	return t->max_depth;
}
