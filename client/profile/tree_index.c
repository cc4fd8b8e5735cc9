/*
 * tree_index.c - the two indexes used while stacks are added: function
 * names, interned once with their type (common/intern.h), and whole
 * stacks, by a hash of their function ids (common/hash.h), so a stack
 * that comes again (every drain of a live run sends the busy ones) only
 * adds its values.  Both indexes are freed before finishing; the names
 * stay.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "tree_impl.h"

int
tree_index_init(struct flame_tree *t)
{
	int	sts;

	if ((sts = intern_init(&t->names)) < 0)
		return sts;
	return hash_table_init(&t->stack_index, 0);
}

void
tree_index_free(struct flame_tree *t)
{
	intern_seal(&t->names);
	hash_table_free(&t->stack_index);
}

int
tree_intern_function(struct flame_tree *t, const char *name, size_t len, char type,
		     uint32_t *id)
{
	return tree_intern_hashed(t, name, len, type, hash_bytes(name, len), id);
}

int
tree_intern_hashed(struct flame_tree *t, const char *name, size_t len, char type,
		   uint64_t hash, uint32_t *id)
{
	struct flame_function	*f;

	/* room first: a name interned is a function, so their ids agree */
	if (array_reserve(&t->functions, &t->functions_cap, t->nfunctions + 1) < 0 ||
	    intern_put_hashed(&t->names, name, len, type, hash, id) < 0)
		return -ENOMEM;
	if (*id < t->nfunctions)
		return 0;
	f = &t->functions[t->nfunctions++];
	memset(f, 0, sizeof(*f));
	f->name = intern_name(&t->names, *id);
	f->type = type;
	return 0;
}

/* Room in base[] for stack ids below n; new entries are zero. */
static int
base_reserve(struct flame_tree *t, size_t n)
{
	size_t	old = t->base ? t->base_cap : 0;

	if (array_reserve(&t->base, &t->base_cap, n) < 0)
		return -ENOMEM;
	memset(t->base + old, 0, (t->base_cap - old) * sizeof(*t->base));
	return 0;
}

static void
add_values(struct flame_tree *t, struct tree_stack *st, const struct tree_values *v,
	   int baseline)
{
	struct tree_values	*to = baseline ? &t->base[st->id] : NULL;

	if (to != NULL) {
		to->samples += v->samples;
		to->us += v->us;
	} else {
		st->samples += v->samples;
		st->us += v->us;
	}
}

/* The candidate stack is frames[nframes .. nframes + n), past the end. */
int
tree_commit_stack(struct flame_tree *t, size_t n, const struct tree_values *v, int baseline)
{
	const uint32_t		*ids = t->frames + t->nframes;
	uint64_t		key = hash_bytes(ids, n * sizeof(*ids));
	struct hash_slot	*s;
	struct tree_stack	*st;

	if ((baseline || t->base) && base_reserve(t, t->nstacks + 1) < 0)
		return -ENOMEM;
	for (s = hash_table_find(&t->stack_index, key); !hash_slot_empty(s);
	     s = hash_table_next(&t->stack_index, key, s)) {
		st = &t->stacks[hash_slot_value(s)];
		if (st->len == n && memcmp(t->frames + st->first, ids, n * sizeof(*ids)) == 0) {
			add_values(t, st, v, baseline);
			return 0;	/* the candidate's frames are left past the end */
		}
	}
	if (t->nstacks >= UINT32_MAX - 1 ||
	    array_reserve(&t->stacks, &t->stacks_cap, t->nstacks + 1) < 0 ||
	    hash_table_insert(&t->stack_index, s, key, (uint32_t)t->nstacks) < 0)
		return -ENOMEM;
	st = &t->stacks[t->nstacks];
	*st = (struct tree_stack){
		.first = t->nframes, .len = (uint32_t)n, .id = (uint32_t)t->nstacks,
	};
	t->nstacks++;
	add_values(t, st, v, baseline);
	t->nframes += n;
	return 0;
}
