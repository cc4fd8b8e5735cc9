/*
 * test_tree.c - the function/node tree: DeepFlow type letters, pre-order
 * numbering with siblings sorted by name, totals, function totals that
 * count recursion once, independence from insertion order, bad calls.
 */
#include <errno.h>
#include <stdint.h>
#include "unit.h"
#include "flame_input.h"
#include "lib/hash.h"

/* recursion (foo;foo;foo), shared prefixes (main;foo), two threads */
static const char *const profile =
	"proc;[t] main;main;foo;bar 3\n"
	"proc;[t] main;main;foo 2\n"
	"proc;[t] main;main;baz 1\n"
	"proc;[t] worker;start;foo;foo;foo 4\n";

/* the same stacks, in another order and with a duplicate split in two */
static const char *const shuffled =
	"proc;[t] worker;start;foo;foo;foo 1\n"
	"proc;[t] main;main;baz 1\n"
	"proc;[t] main;main;foo;bar 3\n"
	"proc;[t] worker;start;foo;foo;foo 3\n"
	"proc;[t] main;main;foo 2\n";

static void
test_function_types(void)
{
	CHECK_INT(function_type("Total", 1), 'H');
	CHECK_INT(function_type("nginx", 1), 'P');
	CHECK_INT(function_type("[k] nginx", 1), 'P');	/* any other root */
	CHECK_INT(function_type("Total", 0), 'A');
	CHECK_INT(function_type("[p] java", 0), 'P');
	CHECK_INT(function_type("[t] DefaultTimer10-", 0), 'T');
	CHECK_INT(function_type("[k] entry_SYSCALL_64_after_hwframe", 0), 'K');
	CHECK_INT(function_type("[c] cuLaunchKernel", 0), 'C');
	CHECK_INT(function_type("[l] __write", 0), 'L');
	CHECK_INT(function_type("[/tmp/perf-29887.map]", 0), '?');
	CHECK_INT(function_type("[unknown] 0x0000000003932388", 0), '?');
	CHECK_INT(function_type("[x] other", 0), '?');
	CHECK_INT(function_type("[", 0), '?');
	CHECK_INT(function_type("[k]", 0), '?');		/* no space: not a prefix */
	CHECK_INT(function_type("main", 0), 'A');
	CHECK_INT(function_type("", 0), 'A');
}

/* expected pre-order: name, parent, depth, self, total (samples) */
static const struct {
	const char	*name;
	int		parent, depth, self, total;
} expected_nodes[] = {
	{ "proc",	-1, 0, 0, 10 },
	{ "[t] main",	 0, 1, 0, 6 },
	{ "main",	 1, 2, 0, 6 },
	{ "baz",	 2, 3, 1, 1 },
	{ "foo",	 2, 3, 2, 5 },
	{ "bar",	 4, 4, 3, 3 },
	{ "[t] worker",	 0, 1, 0, 4 },
	{ "start",	 6, 2, 0, 4 },
	{ "foo",	 7, 3, 0, 4 },
	{ "foo",	 8, 4, 0, 4 },
	{ "foo",	 9, 5, 4, 4 },
};

static void
test_nodes(void)
{
	struct flame_tree	*t = tree_from(profile);
	size_t			i, n = sizeof(expected_nodes) / sizeof(expected_nodes[0]);

	CHECK(t != NULL);
	if (t == NULL)
		return;
	CHECK_INT(flame_tree_nnodes(t), n);
	CHECK_INT(flame_tree_max_depth(t), 5);
	for (i = 0; i < n && i < flame_tree_nnodes(t); i++) {
		const struct flame_node *x = tree_node(t, i);

		CHECK_STR(flame_tree_function(t, x->function)->name, expected_nodes[i].name);
		CHECK_INT(x->parent, expected_nodes[i].parent);
		CHECK_INT(x->depth, expected_nodes[i].depth);
		CHECK_INT(x->self_samples, expected_nodes[i].self);
		CHECK_INT(x->total_samples, expected_nodes[i].total);
		CHECK_INT(x->self_us, expected_nodes[i].self * US_PER_SAMPLE);
		CHECK_INT(x->total_us, expected_nodes[i].total * US_PER_SAMPLE);
	}
	CHECK_INT(flame_tree_nroots(t), 1);
	CHECK_INT(flame_tree_total_samples(t), 10);
	CHECK_INT(flame_tree_total_us(t), 10 * US_PER_SAMPLE);
	CHECK(tree_node(t, n) == NULL);
	flame_tree_free(t);
}

static void
test_functions(void)
{
	static const struct {
		const char *name;
		char	type;
		int	self, total;
	} want[] = {	/* numbered by first appearance in pre-order */
		{ "proc", 'P', 0, 10 }, { "[t] main", 'T', 0, 6 }, { "main", 'A', 0, 6 },
		{ "baz", 'A', 1, 1 },
		{ "foo", 'A', 6, 9 },	/* 5 under main + 4 once for foo;foo;foo */
		{ "bar", 'A', 3, 3 }, { "[t] worker", 'T', 0, 4 }, { "start", 'A', 0, 4 },
	};
	struct flame_tree	*t = tree_from(profile);
	size_t			i, n = sizeof(want) / sizeof(want[0]);

	CHECK(t != NULL);
	if (t == NULL)
		return;
	CHECK_INT(flame_tree_nfunctions(t), n);
	for (i = 0; i < n && i < flame_tree_nfunctions(t); i++) {
		const struct flame_function *f = flame_tree_function(t, i);

		CHECK_STR(f->name, want[i].name);
		CHECK_INT(f->type, want[i].type);
		CHECK_INT(f->self_samples, want[i].self);
		CHECK_INT(f->total_samples, want[i].total);
		CHECK_INT(f->total_us, want[i].total * US_PER_SAMPLE);
	}
	flame_tree_free(t);
}

/* Host view: Total (H) -> [p] process (P) -> [t] thread (T) -> frames. */
static void
test_host_view(void)
{
	struct flame_tree *t = tree_from(
		"Total;[p] redis;[t] redis;[unknown] 0x0000000000001234 1\n"
		"Total;[p] nginx;[t] worker;[l] write;[k] ksys_write 3\n"
		"Total;[p] nginx;[t] nginx;[k] do_syscall_64 2\n");
	static const char types[] = "HPTKTLKPT?";
	size_t i;

	CHECK(t != NULL);
	if (t == NULL)
		return;
	CHECK_INT(flame_tree_nnodes(t), 10);
	for (i = 0; i < 10 && i < flame_tree_nnodes(t); i++)
		CHECK_INT(flame_tree_function(t, tree_node(t, i)->function)->type, types[i]);
	CHECK_STR(flame_tree_function(t, tree_node(t, 1)->function)->name, "[p] nginx");
	CHECK_STR(flame_tree_function(t, tree_node(t, 7)->function)->name, "[p] redis");
	CHECK_INT(tree_node(t, 0)->total_samples, 6);
	CHECK_INT(tree_node(t, 1)->total_samples, 5);
	flame_tree_free(t);
}

/* The same stacks in any order give the same numbering and values. */
static void
test_order_independent(void)
{
	struct flame_tree	*a = tree_from(profile), *b = tree_from(shuffled);
	size_t			i;

	CHECK(a != NULL && b != NULL);
	if (a == NULL || b == NULL)
		goto out;
	CHECK_INT(flame_tree_nnodes(b), flame_tree_nnodes(a));
	CHECK_INT(flame_tree_nfunctions(b), flame_tree_nfunctions(a));
	for (i = 0; i < flame_tree_nnodes(a) && i < flame_tree_nnodes(b); i++)
		CHECK(memcmp(tree_node(a, i), tree_node(b, i),
			      sizeof(struct flame_node)) == 0);
	for (i = 0; i < flame_tree_nfunctions(a) && i < flame_tree_nfunctions(b); i++)
		CHECK_STR(flame_tree_function(b, i)->name, flame_tree_function(a, i)->name);
out:
	flame_tree_free(a);
	flame_tree_free(b);
}

/* Several roots (no host view) are a forest: each has parent -1, linked as
 * siblings; a name used as a root (P) and as a frame (A) is two functions. */
static void
test_forest(void)
{
	struct flame_tree *t = tree_from("zsh;main 1\nbash;zsh 2\nbash;main 1\n");

	CHECK(t != NULL);
	if (t == NULL)
		return;
	CHECK_INT(flame_tree_nnodes(t), 5);
	CHECK_STR(flame_tree_function(t, tree_node(t, 0)->function)->name, "bash");
	CHECK_INT(flame_tree_nroots(t), 2);
	CHECK_INT(tree_node(t, 3)->depth, 0);
	CHECK_INT(tree_node(t, 3)->parent, -1);
	CHECK_STR(flame_tree_function(t, tree_node(t, 3)->function)->name, "zsh");
	CHECK_INT(flame_tree_function(t, tree_node(t, 3)->function)->type, 'P');
	CHECK_INT(flame_tree_function(t, tree_node(t, 2)->function)->type, 'A');
	CHECK(tree_node(t, 2)->function != tree_node(t, 3)->function);
	CHECK_INT(flame_tree_nfunctions(t), 4);
	flame_tree_free(t);
}

/* Consecutive stacks share prefixes (the lookups they skip must not change
 * the result): a stack that is a prefix of the previous one, one equal to
 * it, one diverging at the root, one returning to an earlier branch. */
static void
test_shared_prefixes(void)
{
	struct flame_tree *t = tree_from(
		"a;b;c 1\n"
		"a;b 2\n"		/* prefix of the previous */
		"a;b;c 3\n"		/* back to the longer one */
		"a;b;c 1\n"		/* equal */
		"x;b;c 1\n"		/* same names, other root */
		"a;y;c 1\n"		/* diverges below the root */
		"a;b;d 1\n");		/* an earlier branch, not the previous */

	CHECK(t != NULL);
	if (t == NULL)
		return;
	/* a b c d y c x b c */
	CHECK_INT(flame_tree_nnodes(t), 9);
	CHECK_INT(tree_node(t, 0)->total_samples, 9);
	CHECK_INT(tree_node(t, 1)->self_samples, 2);	/* a;b */
	CHECK_INT(tree_node(t, 2)->self_samples, 5);	/* a;b;c */
	CHECK_INT(tree_node(t, 3)->self_samples, 1);	/* a;b;d */
	CHECK_INT(tree_node(t, 4)->total_samples, 1);	/* a;y */
	CHECK_INT(tree_node(t, 6)->parent, -1);		/* x */
	CHECK_INT(tree_node(t, 8)->self_samples, 1);	/* x;b;c */
	flame_tree_free(t);
}

/* Memory profiles: the last frame of each stack is an object, type O, a
 * different function from the same name inside a stack. */
static void
test_object_leaves(void)
{
	struct flame_tree	*t = flame_tree_new();
	const char		*a[] = { "java", "alloc", "byte[]" };
	const char		*b[] = { "java", "alloc" };
	const char		*c[] = { "java", "alloc", "byte[]", "inner" };

	flame_tree_set_object_leaves(t, 1);
	CHECK_INT(flame_tree_add(t, a, 3, 1, 1), 0);
	CHECK_INT(flame_tree_add(t, b, 2, 1, 1), 0);	/* alloc as a leaf */
	CHECK_INT(flame_tree_add(t, c, 4, 1, 1), 0);	/* byte[] inside */
	CHECK_INT(flame_tree_finish(t), 0);
	/* java; alloc(A) -> byte[](A) -> inner(O), byte[](O); alloc(O) */
	CHECK_INT(flame_tree_nnodes(t), 6);
	CHECK_INT(flame_tree_nfunctions(t), 6);
	CHECK_INT(flame_tree_function(t, tree_node(t, 0)->function)->type, 'P');
	CHECK_INT(flame_tree_function(t, tree_node(t, 1)->function)->type, 'A');
	CHECK_STR(flame_tree_function(t, tree_node(t, 2)->function)->name, "byte[]");
	CHECK_INT(flame_tree_function(t, tree_node(t, 2)->function)->type, 'A');
	CHECK_INT(flame_tree_function(t, tree_node(t, 3)->function)->type, 'O');
	CHECK_STR(flame_tree_function(t, tree_node(t, 4)->function)->name, "byte[]");
	CHECK_INT(flame_tree_function(t, tree_node(t, 4)->function)->type, 'O');
	CHECK_INT(flame_tree_function(t, tree_node(t, 5)->function)->type, 'O');
	flame_tree_free(t);
}

/* Trees of the same stacks, added by name and as a source's numbered
 * frames, are the same: names, types, nodes, values. */
static void
check_same_trees(struct flame_tree *a, struct flame_tree *b)
{
	size_t	i;

	CHECK_INT(flame_tree_finish(a), 0);
	CHECK_INT(flame_tree_finish(b), 0);
	CHECK_INT(flame_tree_nnodes(b), flame_tree_nnodes(a));
	CHECK_INT(flame_tree_nfunctions(b), flame_tree_nfunctions(a));
	for (i = 0; i < flame_tree_nnodes(a) && i < flame_tree_nnodes(b); i++)
		CHECK(memcmp(tree_node(a, i), tree_node(b, i), sizeof(struct flame_node)) == 0);
	for (i = 0; i < flame_tree_nfunctions(a) && i < flame_tree_nfunctions(b); i++) {
		CHECK_STR(flame_tree_function(b, i)->name, flame_tree_function(a, i)->name);
		CHECK_INT(flame_tree_function(b, i)->type, flame_tree_function(a, i)->type);
	}
	flame_tree_free(a);
	flame_tree_free(b);
}

static void
test_framed(int lines, int object_leaves)
{
	/* two frames that are one function once the line is cut */
	static const char *const text[] = {
		"f (a.py:10)", "f (a.py:12)", "[k] vfs_read", "g", "[l] libc.so.6", "main",
		"not (python)",
	};
	static const char *const cut[] = {
		"f (a.py)", "f (a.py)", "[k] vfs_read", "g", "[l] libc.so.6", "main",
		"not (python)",
	};
	static const uint32_t stacks[][4] = {
		{ 5, 0, 3, 2 }, { 5, 1, 3, 2 }, { 5, 1, 4 }, { 5 }, { 5, 3, 0, 6 },
	};
	static const uint32_t depth[] = { 4, 4, 3, 1, 4 };
	struct flame_tree	*a = flame_tree_new(), *b = flame_tree_new();
	const char		*layers[] = { "Total", "[p] py" }, *path[6], *names[4];
	size_t			lens[] = { 5, 6 }, k, i;
	uint32_t		flens[4];
	uint64_t		hashes[4];

	flame_tree_set_object_leaves(a, object_leaves);
	flame_tree_set_object_leaves(b, object_leaves);
	for (k = 0; k < 10; k++) {
		size_t			s = k % 5;
		struct stack_frames	f = { names, flens, hashes, depth[s] };

		path[0] = layers[0];
		path[1] = layers[1];
		for (i = 0; i < depth[s]; i++) {
			const char *name = text[stacks[s][i]];

			path[2 + i] = lines ? name : cut[stacks[s][i]];
			names[i] = name;
			flens[i] = (uint32_t)strlen(name);
			hashes[i] = hash_bytes(name, flens[i]);
		}
		CHECK_INT(flame_tree_add(a, path, 2 + depth[s], k + 1, (k + 1) * 10), 0);
		CHECK_INT(flame_tree_add_framed(b, layers, lens, 2, &f, lines, k + 1,
						(k + 1) * 10, 0), 0);
		if (s == 2) {	/* and to a baseline */
			CHECK_INT(flame_tree_add_baseline(a, path, 2 + depth[s], 7, 70), 0);
			CHECK_INT(flame_tree_add_framed(b, layers, lens, 2, &f, lines, 7, 70, 1), 0);
		}
	}
	check_same_trees(a, b);
}

static void
test_bad_calls(void)
{
	struct flame_tree	*t = flame_tree_new();
	const char		*path[] = { "a", NULL };

	CHECK_INT(flame_tree_add(t, path, 0, 1, 1), -EINVAL);
	CHECK_INT(flame_tree_add(t, path, 2, 1, 1), -EINVAL);
	CHECK_INT(flame_tree_nnodes(t), 0);
	CHECK_INT(flame_tree_finish(t), 0);		/* empty is fine */
	CHECK_INT(flame_tree_nnodes(t), 0);
	CHECK_INT(flame_tree_add(t, path, 1, 1, 1), -EINVAL);	/* after finish */
	CHECK_INT(flame_tree_finish(t), -EINVAL);
	flame_tree_free(t);
	flame_tree_free(NULL);
}

/* Many distinct stacks: the hashes grow, every sample lands once, the
 * roots' totals add up to all samples, parents precede children. */
static void
test_many_stacks(void)
{
	struct flame_tree	*t = flame_tree_new();
	char			names[8][16];
	const char		*path[8];
	uint64_t		i, sum = 0, self = 0, roots = 0;
	uint32_t		x = 12345, *depth_of;
	size_t			d, failures = 0, misplaced = 0, seen = 0;
	struct flame_walk	*w;
	const struct flame_node	*n;

	for (d = 0; d < 8; d++)
		path[d] = names[d];
	for (i = 0; i < 50000; i++) {
		for (d = 0; d < 8; d++) {
			x = x * 1103515245u + 12345u;
			snprintf(names[d], sizeof(names[d]), "f%u", (x >> 16) % (d < 2 ? 4 : 40));
		}
		if (flame_tree_add(t, path, 8, i % 7 + 1, (i % 7 + 1) * 3) != 0)
			failures++;
		sum += i % 7 + 1;
	}
	CHECK_INT(failures, 0);
	CHECK_INT(flame_tree_finish(t), 0);
	CHECK(flame_tree_nnodes(t) > 50000);
	depth_of = calloc(flame_tree_nnodes(t) + 1, sizeof(*depth_of));
	w = flame_walk_new(t);
	CHECK(w != NULL && depth_of != NULL);
	while (w != NULL && depth_of != NULL && (n = flame_walk_next(w)) != NULL) {
		self += n->self_samples;
		depth_of[n->id] = n->depth;
		if (n->id != seen++)
			misplaced++;
		if (n->parent < 0)
			roots += n->total_samples;
		else if ((uint64_t)n->parent >= n->id || n->depth != depth_of[n->parent] + 1)
			misplaced++;
	}
	CHECK_INT(seen, flame_tree_nnodes(t));
	flame_walk_free(w);
	free(depth_of);
	CHECK_INT(misplaced, 0);
	CHECK_INT(self, sum);
	CHECK_INT(roots, sum);
	CHECK_INT(flame_tree_max_depth(t), 7);
	flame_tree_free(t);
}

/* A tree of stacks of 1 to 9 frames over few names, so that shared
 * prefixes and subtrees come in every length. */
static struct flame_tree *
ragged_tree(int nstacks)
{
	struct flame_tree	*t = flame_tree_new();
	char			names[9][8];
	const char		*path[9];
	uint32_t		x = 777;
	int			i, d, len;

	for (d = 0; d < 9; d++)
		path[d] = names[d];
	for (i = 0; i < nstacks; i++) {
		x = x * 1103515245u + 12345u;
		len = 1 + (int)((x >> 16) % 9);
		for (d = 0; d < len; d++) {
			x = x * 1103515245u + 12345u;
			snprintf(names[d], sizeof(names[d]), "f%u", (x >> 16) % 3);
		}
		CHECK_INT(flame_tree_add(t, path, (size_t)len, (uint64_t)i % 5 + 1, 10), 0);
	}
	CHECK_INT(flame_tree_finish(t), 0);
	return t;
}

/* Nodes [from, to) of a part walk, each equal to the whole walk's. */
static size_t
part_mismatches(const struct flame_tree *t, const struct flame_node *all, size_t from, size_t to)
{
	struct flame_walk	*w = flame_walk_new(t);
	const struct flame_node	*n;
	size_t			id = from, bad = 0;

	if (w == NULL)
		return 1;
	flame_walk_part(w, from, to);
	while ((n = flame_walk_next(w)) != NULL) {
		const struct flame_node	*a = &all[id++];

		if (n->id != a->id || n->function != a->function || n->depth != a->depth ||
		    n->parent != a->parent || n->total_samples != a->total_samples ||
		    n->self_samples != a->self_samples || n->total_us != a->total_us)
			bad++;
	}
	flame_walk_free(w);
	if (to > flame_tree_nnodes(t))
		to = flame_tree_nnodes(t);
	return bad + (id != (to < from ? from : to));
}

/* A walk split anywhere, in any number of parts, gives the whole walk's
 * nodes: each part finds its ancestors from the stacks before it. */
static void
test_walk_parts(void)
{
	struct flame_tree	*t = ragged_tree(3000);
	struct flame_walk	*w = flame_walk_new(t);
	const struct flame_node	*n;
	struct flame_node	*all;
	size_t			nn = flame_tree_nnodes(t), i, bad = 0, k;

	all = calloc(nn + 1, sizeof(*all));
	CHECK(w != NULL && all != NULL && nn > 1000);
	if (w == NULL || all == NULL)
		return;
	for (i = 0; (n = flame_walk_next(w)) != NULL; i++)
		all[i] = *n;
	flame_walk_free(w);
	for (i = 0; i <= nn; i++)		/* two parts, split at every node */
		bad += part_mismatches(t, all, 0, i) + part_mismatches(t, all, i, nn);
	CHECK_INT(bad, 0);
	for (k = 1; k <= 7; k++)		/* k parts */
		for (i = 0; i < k; i++)
			bad += part_mismatches(t, all, nn * i / k, nn * (i + 1) / k);
	CHECK_INT(bad, 0);
	CHECK_INT(part_mismatches(t, all, nn, nn + 5), 0);	/* past the end: nothing */
	free(all);
	flame_tree_free(t);
}

/* Function totals of a tree big enough to be summed in two halves, one
 * on a thread: equal to each stack counted once for every distinct
 * function on it, recursion (few names, long stacks) everywhere. */
static void
test_split_totals(void)
{
	struct flame_tree	*t = flame_tree_new();
	char			names[13][8];
	const char		*path[13] = { "proc" };
	uint64_t		want_total[8] = { 0 }, want_self[8] = { 0 };
	uint32_t		x = 4242;
	size_t			i, d, f, len, bad = 0;

	for (d = 1; d < 13; d++)
		path[d] = names[d];
	for (i = 0; i < 30000; i++) {
		unsigned	seen = 0, id = 0;

		x = x * 1103515245u + 12345u;
		len = 4 + (x >> 16) % 9;
		for (d = 1; d <= len; d++) {
			x = x * 1103515245u + 12345u;
			id = (x >> 16) % 8;
			snprintf(names[d], sizeof(names[d]), "g%u", id);
			if (!(seen & 1u << id))
				want_total[id] += i % 4 + 1;
			seen |= 1u << id;
		}
		want_self[id] += i % 4 + 1;
		CHECK_INT(flame_tree_add(t, path, len + 1, i % 4 + 1, 0), 0);
	}
	CHECK_INT(flame_tree_finish(t), 0);
	CHECK(flame_tree_nnodes(t) > 64 * 1024);
	CHECK_INT(flame_tree_nfunctions(t), 9);		/* proc, g0 .. g7 */
	for (f = 1; f < flame_tree_nfunctions(t); f++) {
		const struct flame_function *fn = flame_tree_function(t, f);
		unsigned	id = (unsigned)atoi(fn->name + 1);

		if (fn->name[0] != 'g' || id > 7 || fn->total_samples != want_total[id] ||
		    fn->self_samples != want_self[id])
			bad++;
	}
	CHECK_INT(bad, 0);
	flame_tree_free(t);
}

/* A differential tree: each stack of either side is a node; totals of
 * both columns add up; a baseline-only branch has current totals of 0;
 * --normalize scales each baseline stack by 21/18, rounding down. */
static void
test_baseline(int normalize)
{
	struct flame_tree	*t = flame_tree_new();
	const char		*ax[] = { "app", "a", "x" }, *b[] = { "app", "b" };
	const char		*c[] = { "app", "c" }, *d[] = { "app", "d" };
	const struct flame_node	*n;

	flame_tree_normalize_baseline(t, normalize);
	CHECK_INT(flame_tree_add_baseline(t, ax, 3, 10, 100), 0);
	CHECK_INT(flame_tree_add_baseline(t, b, 2, 5, 50), 0);
	CHECK_INT(flame_tree_add_baseline(t, c, 2, 3, 30), 0);
	CHECK_INT(flame_tree_add(t, ax, 3, 14, 140), 0);
	CHECK_INT(flame_tree_add(t, b, 2, 5, 50), 0);
	CHECK_INT(flame_tree_add(t, d, 2, 2, 20), 0);
	CHECK_INT(flame_tree_finish(t), 0);
	CHECK(flame_tree_has_baseline(t));
	/* app, a, x, b, c, d */
	CHECK_INT(flame_tree_nnodes(t), 6);
	CHECK_INT(flame_tree_total_samples(t), 21);
	CHECK_INT(flame_tree_base_total_samples(t), normalize ? 11 + 5 + 3 : 18);
	n = tree_node(t, 2);		/* app;a;x */
	CHECK_INT(n->self_samples, 14);
	CHECK_INT(n->base_self_samples, normalize ? 11 : 10);
	CHECK_INT(n->base_total_us, normalize ? 100 * 210 / 180 : 100);
	n = tree_node(t, 4);		/* app;c: the baseline's only */
	CHECK_STR(flame_tree_function(t, n->function)->name, "c");
	CHECK_INT(n->total_samples, 0);
	CHECK_INT(n->base_total_samples, 3);
	n = tree_node(t, 5);		/* app;d: the current profile's only */
	CHECK_INT(n->total_samples, 2);
	CHECK_INT(n->base_total_samples, 0);
	n = tree_node(t, 0);
	CHECK_INT(n->base_total_samples, flame_tree_base_total_samples(t));
	flame_tree_free(t);
}

int
main(void)
{
	test_function_types();
	test_nodes();
	test_functions();
	test_host_view();
	test_order_independent();
	test_forest();
	test_shared_prefixes();
	test_object_leaves();
	test_framed(0, 0);
	test_framed(1, 0);
	test_framed(0, 1);
	test_bad_calls();
	test_many_stacks();
	test_walk_parts();
	test_split_totals();
	test_baseline(0);
	test_baseline(1);
	return unit_report("test_tree");
}
