/*
 * test_select.c - selection and the shape of profiles: process root, host
 * view (Total -> [p] -> [t] -> frames) with totals as the sum of the
 * children, one profile per process, and the --process/--pid/--event
 * filters.  Trees are read back through tree.h, path by path.
 */
#include <stdlib.h>
#include <unistd.h>
#include "unit.h"
#include "flame_input.h"
#include "profile/select.h"
#include "source/source.h"

/* "a;b;c self_samples/self_us" per node with self samples, pre-order. */
static void
paths(const struct flame_tree *t, char *out, size_t len)
{
	const char	*path[64];
	size_t		i, d, used = 0;

	out[0] = '\0';
	for (i = 0; i < flame_tree_nnodes(t); i++) {
		const struct flame_node	*n = tree_node(t, i);

		if (n->depth >= 64)
			continue;
		path[n->depth] = flame_tree_function(t, n->function)->name;
		if (n->self_samples == 0)
			continue;
		for (d = 0; d <= n->depth; d++)
			used += (size_t)snprintf(out + used, len - used, "%s%s",
						 d ? ";" : "", path[d]);
		used += (size_t)snprintf(out + used, len - used, " %llu/%llu\n",
					 (unsigned long long)n->self_samples,
					 (unsigned long long)n->self_us);
	}
}

static const struct stack_sample samples[] = {
	{ "h1", "java", "main", "run;work", "on-cpu", 10, 11, 3, 30000, 0, 0, NULL },
	{ "h1", "java", "gc", "gcloop", "on-cpu", 10, 12, 2, 20000, 0, 0, NULL },
	{ "h1", "java", "main", "run;work", "on-cpu", 20, 21, 1, 10000, 0, 0, NULL },
	{ "h1", "nginx", "nginx", "[k] read", "on-cpu", 30, 30, 4, 40000, 0, 0, NULL },
	{ "h1", "javac", "javac", "x", "off-cpu", 40, 40, 9, 90000, 0, 0, NULL },
	{ "h2", "java", "main", "run", "on-cpu", 50, 50, 5, 50000, 0, 0, NULL },
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

static size_t
build(const struct select_options *o, struct profile **p)
{
	char			err[128];
	struct selection	*sel = selection_new(o, err, sizeof(err));
	size_t			i, n = 0;

	CHECK(sel != NULL);
	for (i = 0; i < NSAMPLES; i++)
		CHECK_INT(selection_add(sel, &samples[i]), 0);
	CHECK_INT(selection_take(sel, 0, 0, p, &n), 0);
	CHECK_INT(selection_samples(sel), 0);	/* emptied for the next period */
	selection_free(sel);
	return n;
}

static void
test_default(void)
{
	struct select_options	o = { .event = "on-cpu" };
	struct profile		*p;
	char			text[1024];
	size_t			n = build(&o, &p);

	/* h1 has two processes: host view; h2 has one: rooted at it */
	CHECK_INT(n, 2);
	CHECK_STR(p[0].host, "h1");
	CHECK_STR(p[0].name, "Total");
	CHECK_INT(p[0].samples, 10);
	paths(p[0].tree, text, sizeof(text));
	CHECK_STR(text,
		  "Total;[p] java;[t] gc;gcloop 2/20000\n"
		  "Total;[p] java;[t] main;run;work 4/40000\n"
		  "Total;[p] nginx;[t] nginx;[k] read 4/40000\n");
	CHECK_INT(tree_node(p[0].tree, 0)->total_samples, 10);
	CHECK_INT(tree_node(p[0].tree, 0)->total_us, 100000);
	CHECK_INT(function_type(flame_tree_function(p[0].tree, 0)->name, 1), 'H');
	CHECK_STR(p[1].host, "h2");
	CHECK_STR(p[1].name, "java");
	paths(p[1].tree, text, sizeof(text));
	CHECK_STR(text, "java;[t] main;run 5/50000\n");
	profiles_free(p, n);
}

static void
test_process_and_total(void)
{
	struct select_options	o = { .process = "java", .total = true, .event = "on-cpu" };
	struct profile		*p;
	char			text[1024];
	size_t			n = build(&o, &p);

	CHECK_INT(n, 1);	/* h1 and h2: the fleet view of java only */
	CHECK_STR(p[0].name, "Total");
	paths(p[0].tree, text, sizeof(text));
	CHECK_STR(text,
		  "Total;[h] h1;[p] java;[t] gc;gcloop 2/20000\n"
		  "Total;[h] h1;[p] java;[t] main;run;work 4/40000\n"
		  "Total;[h] h2;[p] java;[t] main;run 5/50000\n");
	profiles_free(p, n);

	/* the regex matches whole names: "jav" selects nothing */
	o = (struct select_options){ .process = "jav" };
	n = build(&o, &p);
	CHECK_INT(n, 0);
	profiles_free(p, n);
	o = (struct select_options){ .process = "java.*" };	/* any event */
	n = build(&o, &p);
	CHECK_INT(n, 2);
	CHECK_INT(p[0].samples, 15);	/* java 6 + javac 9 on h1 */
	profiles_free(p, n);
}

static void
test_multi_instance_and_pid(void)
{
	uint32_t		pids[] = { 10, 30 };
	struct select_options	o = { .multi_instance = true, .pids = pids, .npids = 2,
				      .event = "on-cpu" };
	struct profile		*p;
	char			text[1024];
	size_t			n = build(&o, &p);

	CHECK_INT(n, 2);
	CHECK_STR(p[0].name, "java");
	CHECK_INT(p[0].pid, 10);
	paths(p[0].tree, text, sizeof(text));
	CHECK_STR(text, "java;[t] gc;gcloop 2/20000\njava;[t] main;run;work 3/30000\n");
	CHECK_STR(p[1].name, "nginx");
	CHECK_INT(p[1].pid, 30);
	profiles_free(p, n);
}

/* A PID the kernel gave to a second process: two profiles, one each. */
static void
test_reused_pid(void)
{
	static const struct stack_sample	reuse[] = {
		{ "h1", "bash", "bash", "main;a", "on-cpu", 77, 77, 22, 220000, 0, 0, NULL },
		{ "h1", "bash", "bash", "main;a", "on-cpu", 77, 77, 1, 10000, 0, 1, NULL },
		{ "h1", "bash", "bash", "main;b", "on-cpu", 77, 77, 2, 20000, 0, 1, NULL },
	};
	struct select_options	o = { .multi_instance = true };
	char			err[128];
	struct selection	*sel = selection_new(&o, err, sizeof(err));
	struct profile		*p = NULL;
	size_t			i, n = 0;

	CHECK(sel != NULL);
	for (i = 0; i < sizeof(reuse) / sizeof(reuse[0]); i++)
		CHECK_INT(selection_add(sel, &reuse[i]), 0);
	CHECK_INT(selection_take(sel, 0, 0, &p, &n), 0);
	selection_free(sel);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_INT(p[0].pid, 77);
		CHECK_INT(p[0].gen, 0);
		CHECK_INT(p[0].samples, 22);
		CHECK_INT(p[1].pid, 77);
		CHECK_INT(p[1].gen, 1);
		CHECK_INT(p[1].samples, 3);
	}
	profiles_free(p, n);
}

static void
test_bad_regex(void)
{
	struct select_options	o = { .process = "(" };
	char			err[128];

	CHECK(selection_new(&o, err, sizeof(err)) == NULL);
	CHECK(strncmp(err, "--process (: ", 13) == 0);
}

/*
 * --process compiles within bounds: the regex bomb of issue 17 (2.2 s and
 * 750 MB in glibc) is refused with PCRE2's reason (how fast is
 * bench/latency's, section 4).  The regex's own bounds and anchoring are
 * qa/unit/lib/test_bounded_regex.c's.
 */
static void
test_bounded_regex(void)
{
	struct select_options	o = { .process = "a++++++++++++++++++++" };
	char			err[256];

	CHECK(selection_new(&o, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "quantifier does not follow a repeatable item") != NULL);
}

/*
 * DeepFlow's folded form types its roots ("[p] svc;[t] w0;..."): read back
 * and shown in the host view, a process is "[p] svc" once, never
 * "[p] [p] svc", and the process view's root is the name itself.
 */
static void
test_typed_folded_roots(void)
{
	static const char	text[] = "[p] svc;[t] w0;main;spin 3\n[p] db;[t] w1;query 2\n";
	char			path[] = "/tmp/test_select.XXXXXX", err[256], got[512];
	struct select_options	o = { .total = true };
	struct selection	*sel = selection_new(&o, err, sizeof(err));
	struct profile		*p = NULL;
	size_t			n = 0;
	int			fd = mkstemp(path);

	CHECK(fd >= 0 && write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1);
	close(fd);
	CHECK_INT(source_folded_read(path, "h", 99, selection_add, sel, err, sizeof(err)), 0);
	CHECK_INT(selection_take(sel, 0, 0, &p, &n), 0);
	CHECK_INT(n, 1);
	if (n == 1) {
		paths(p[0].tree, got, sizeof(got));
		CHECK_STR(got, "Total;[p] db;[t] w1;query 2/20202\n"
			       "Total;[p] svc;[t] w0;main;spin 3/30303\n");
	}
	profiles_free(p, n);
	/* one process, no --total: rooted at the process name */
	o.total = false;
	selection_free(sel);
	sel = selection_new(&o, err, sizeof(err));
	CHECK_INT(source_folded_read(path, "h", 99, selection_add, sel, err, sizeof(err)), 0);
	CHECK_INT(selection_take(sel, 0, 0, &p, &n), 0);
	CHECK_INT(n, 1);
	if (n == 1)
		CHECK_STR(p[0].name, "Total");	/* two processes: the host view */
	profiles_free(p, n);
	selection_free(sel);
	unlink(path);
}

/* --total over two hosts: one fleet view, each host's view under [h]
 * host, sums exact; --merge-hosts: one profile per process, hosts summed. */
static void
test_fleet(void)
{
	struct select_options	total = { .total = true, .event = "on-cpu" };
	struct select_options	merged = { .merge_hosts = true, .process = "java",
					    .event = "on-cpu" };
	struct profile		*p;
	char			text[1024];
	size_t			n = build(&total, &p);

	CHECK_INT(n, 1);
	CHECK_STR(p[0].host, FLEET_HOST);
	CHECK_STR(p[0].name, "Total");
	CHECK_INT(p[0].samples, 15);
	paths(p[0].tree, text, sizeof(text));
	CHECK_STR(text,
		  "Total;[h] h1;[p] java;[t] gc;gcloop 2/20000\n"
		  "Total;[h] h1;[p] java;[t] main;run;work 4/40000\n"
		  "Total;[h] h1;[p] nginx;[t] nginx;[k] read 4/40000\n"
		  "Total;[h] h2;[p] java;[t] main;run 5/50000\n");
	CHECK_INT(tree_node(p[0].tree, 0)->total_samples, 15);
	CHECK_INT(tree_node(p[0].tree, 1)->total_samples, 10);	/* [h] h1 */
	CHECK_INT(flame_tree_function(p[0].tree, tree_node(p[0].tree, 1)->function)->type, 'H');
	profiles_free(p, n);

	n = build(&merged, &p);
	CHECK_INT(n, 1);
	CHECK_STR(p[0].host, FLEET_HOST);
	CHECK_STR(p[0].name, "java");
	CHECK_INT(p[0].samples, 11);
	paths(p[0].tree, text, sizeof(text));
	CHECK_STR(text,
		  "java;[t] gc;gcloop 2/20000\n"
		  "java;[t] main;run 5/50000\n"
		  "java;[t] main;run;work 4/40000\n");
	profiles_free(p, n);
}

int
main(void)
{
	test_default();
	test_process_and_total();
	test_multi_instance_and_pid();
	test_reused_pid();
	test_bad_regex();
	test_bounded_regex();
	test_typed_folded_roots();
	test_fleet();
	return unit_report("test_select");
}
