/*
 * select.c - filter stacks and build one tree per (host, process).
 *
 * With --total the host view is built directly, one tree per host.
 * Without it a host's tree is rooted at its process until a second process
 * shows up; then that tree is re-rooted under Total -> [p] name once, and
 * the host's samples go to the host view from then on.  So the root
 * depends on what was actually selected (several processes: the host view
 * is the only honest single picture), and memory stays at one tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "lib/bounded_regex.h"
#include "heatmap.h"
#include "select.h"
#include "stack_path.h"

struct group {
	char		*host;
	char		*process;	/* "" for a host view */
	uint32_t	pid, gen;	/* only with --multi-instance */
	uint64_t	samples, value_us;
	struct flame_tree *tree;	/* rooted at the process, or at Total */
};

struct selection {
	struct select_options opts;
	struct bounded_regex *re;	/* --process, or NULL */
	struct group	*groups;
	size_t		ngroups, cap;
	size_t		last;		/* cache: consecutive samples share a group */
	bool		fleet;		/* --total saw a second host: one fleet view */
	uint64_t	samples;
	struct stack_path path;		/* scratch: a sample split */
};

struct selection *
selection_new(const struct select_options *o, char *err, size_t errlen)
{
	struct selection	*sel = calloc(1, sizeof(*sel));
	char			why[160];

	if (sel == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	sel->opts = *o;
	sel->path.lines = o->lines;
	/* the regex must match the whole name: "java" is not "javac" */
	if (o->process != NULL &&
	    (sel->re = bounded_regex_compile(o->process, BOUNDED_REGEX_WHOLE, why, sizeof(why))) == NULL) {
		snprintf(err, errlen, "--process %s: %s", o->process, why);
		free(sel);
		return NULL;
	}
	return sel;
}

static void
group_clear(struct group *g)
{
	free(g->host);
	free(g->process);
	if (g->tree != NULL)
		flame_tree_free(g->tree);
}

void
selection_free(struct selection *sel)
{
	size_t	i;

	if (sel == NULL)
		return;
	for (i = 0; i < sel->ngroups; i++)
		group_clear(&sel->groups[i]);
	free(sel->groups);
	bounded_regex_free(sel->re);
	stack_path_free(&sel->path);
	free(sel);
}

static bool
wanted(const struct selection *sel, const struct stack_sample *s)
{
	size_t	i;

	if (sel->opts.event && s->event && strcmp(sel->opts.event, s->event) != 0)
		return false;
	if (sel->opts.npids > 0) {
		for (i = 0; i < sel->opts.npids; i++)
			if (sel->opts.pids[i] == s->pid)
				break;
		if (i == sel->opts.npids)
			return false;
	}
	/* a match stopped by the regex's limits selects nothing */
	if (sel->re != NULL && strcmp(sel->opts.process, s->process) != 0 &&
	    bounded_regex_search(sel->re, s->process, strlen(s->process)) != 1)
		return false;
	return true;
}

bool
selection_wants(const struct selection *sel, const struct stack_sample *s)
{
	return wanted(sel, s);
}

static struct group *
lookup_group(struct selection *sel, const char *host, const char *process, uint32_t pid,
	     uint32_t gen)
{
	struct group	*g;
	size_t		i;

	for (i = 0; i < sel->ngroups; i++) {
		size_t	k = (sel->last + i) % sel->ngroups;

		g = &sel->groups[k];
		if (g->pid == pid && g->gen == gen && strcmp(g->process, process) == 0 &&
		    strcmp(g->host, host) == 0) {
			sel->last = k;
			return g;
		}
	}
	return NULL;
}

static struct group *
add_group(struct selection *sel, const char *host, const char *process, uint32_t pid,
	  uint32_t gen)
{
	struct group	*g;

	if (array_reserve(&sel->groups, &sel->cap, sel->ngroups + 1) < 0)
		return NULL;
	g = &sel->groups[sel->ngroups];
	memset(g, 0, sizeof(*g));
	g->pid = pid;
	g->gen = gen;
	if ((g->host = strdup(host)) == NULL || (g->process = strdup(process)) == NULL ||
	    (g->tree = flame_tree_new()) == NULL) {
		group_clear(g);
		return NULL;
	}
	sel->last = sel->ngroups++;
	return g;
}

/*
 * Add every path of tree t to total with its root replaced by
 * Total -> layer: a process tree joins a host view under "[p] process",
 * a host view joins the fleet view under "[h] host".  After
 * flame_tree_finish() nodes come in pre-order, so path[0..depth-1]
 * always holds the current node's ancestors.
 */
static int
reroot_into(struct flame_tree *total, struct flame_tree *t, const char *layer)
{
	const char		**path;
	struct flame_walk	*w;
	const struct flame_node	*nd;
	int			sts;

	flame_tree_normalize_baseline(t, 0);	/* once, in the tree it goes to */
	if ((sts = flame_tree_finish(t)) < 0)
		return sts;
	path = calloc((size_t)flame_tree_max_depth(t) + 2, sizeof(*path));
	w = flame_walk_new(t);
	if (path == NULL || w == NULL) {
		free(path);
		flame_walk_free(w);
		return -ENOMEM;
	}
	path[0] = "Total";
	path[1] = layer;
	while (sts == 0 && (nd = flame_walk_next(w)) != NULL) {
		if (nd->depth > 0)
			path[nd->depth + 1] = flame_tree_function(t, nd->function)->name;
		if (nd->self_samples > 0 || nd->self_us > 0)
			sts = flame_tree_add(total, path, nd->depth + 2,
					     nd->self_samples, nd->self_us);
		if (sts == 0 && (nd->base_self_samples > 0 || nd->base_self_us > 0))
			sts = flame_tree_add_baseline(total, path, nd->depth + 2,
						      nd->base_self_samples, nd->base_self_us);
	}
	flame_walk_free(w);
	free(path);
	return sts;
}

/*
 * g's tree goes one level down: a process tree (g->process set) into its
 * host's view, a host view into the fleet's (g->host becomes FLEET_HOST).
 */
static int
reroot_group(struct group *g)
{
	struct flame_tree	*total = flame_tree_new();
	bool			fleet = g->process[0] == '\0';
	char			*layer = NULL, *empty = strdup(""), *fleet_host = strdup(FLEET_HOST);
	int			sts = -ENOMEM;

	if (total != NULL && empty != NULL && fleet_host != NULL &&
	    asprintf(&layer, fleet ? "[h] %s" : "[p] %s", fleet ? g->host : g->process) >= 0)
		sts = reroot_into(total, g->tree, layer);
	free(layer);
	if (sts < 0) {
		if (total != NULL)
			flame_tree_free(total);
		free(empty);
		free(fleet_host);
		return -ENOMEM;
	}
	flame_tree_free(g->tree);
	g->tree = total;
	if (fleet) {
		free(g->host);
		g->host = fleet_host;
		free(empty);
	} else {
		free(g->process);
		g->process = empty;
		free(fleet_host);
	}
	return 0;
}

/* The host a sample's profile belongs to: FLEET_HOST with --merge-hosts. */
static const char *
host_of(const struct selection *sel, const struct stack_sample *s)
{
	return sel->opts.merge_hosts ? FLEET_HOST : s->host;
}

/* --total: the host's view, or once a second host shows up the fleet
 * view, into which the first host's view goes under [h] host. */
static struct group *
total_group(struct selection *sel, const struct stack_sample *s, enum stack_root *root)
{
	const char	*host = host_of(sel, s);
	struct group	*g;

	if (sel->fleet) {
		*root = ROOT_FLEET;
		return lookup_group(sel, FLEET_HOST, "", 0, 0);
	}
	*root = ROOT_HOST;
	if ((g = lookup_group(sel, host, "", 0, 0)) != NULL)
		return g;
	if (sel->ngroups == 0)
		return add_group(sel, host, "", 0, 0);
	/* one host view there, of another host: the fleet's now */
	g = &sel->groups[0];
	if (reroot_group(g) < 0)
		return NULL;
	sel->fleet = true;
	*root = ROOT_FLEET;
	return g;
}

/*
 * The tree a sample goes to, and the root its path takes there: the
 * process's tree, the host view (Total, [p] process), or with --total
 * and several hosts the fleet view (Total, [h] host, [p] process).
 */
static struct group *
group_for(struct selection *sel, const struct stack_sample *s, enum stack_root *root)
{
	const char	*host = host_of(sel, s);
	struct group	*g;
	size_t		i;

	if (sel->opts.multi_instance) {
		*root = ROOT_PROCESS;
		g = lookup_group(sel, host, s->process, s->pid, s->gen);
		return g ? g : add_group(sel, host, s->process, s->pid, s->gen);
	}
	if (sel->opts.total)
		return total_group(sel, s, root);
	*root = ROOT_HOST;
	if ((g = lookup_group(sel, host, "", 0, 0)) != NULL)
		return g;
	*root = ROOT_PROCESS;
	if ((g = lookup_group(sel, host, s->process, 0, 0)) != NULL)
		return g;
	for (i = 0; i < sel->ngroups; i++) {
		g = &sel->groups[i];
		if (strcmp(g->host, host) == 0) {
			/* not its process, not a host view: another process */
			*root = ROOT_HOST;
			return reroot_group(g) < 0 ? NULL : g;
		}
	}
	return add_group(sel, host, s->process, 0, 0);
}

static int
add(struct selection *sel, const struct stack_sample *s, bool baseline)
{
	struct group		*g;
	enum stack_root		root;
	int			sts;

	if (!wanted(sel, s) || s->count == 0)
		return 0;
	if ((g = group_for(sel, s, &root)) == NULL)
		return -ENOMEM;
	if (sel->opts.normalize)
		flame_tree_normalize_baseline(g->tree, 1);
	if (s->frames != NULL) {
		if (stack_path_layers(&sel->path, s, root) < 0)
			return -ENOMEM;
		sts = flame_tree_add_framed(g->tree, sel->path.v, sel->path.len, sel->path.n,
					    s->frames, sel->path.lines, s->count, s->value_us,
					    baseline);
	} else {
		if (stack_path_split(&sel->path, s, root) < 0)
			return -ENOMEM;
		sts = baseline ?
		      flame_tree_add_baseline_n(g->tree, sel->path.v, sel->path.len, sel->path.n,
						s->count, s->value_us) :
		      flame_tree_add_n(g->tree, sel->path.v, sel->path.len, sel->path.n, s->count,
				       s->value_us);
	}
	if (sts < 0 || baseline)
		return sts;
	g->samples += s->count;
	g->value_us += s->value_us;
	sel->samples += s->count;
	return 0;
}

int
selection_add(void *arg, const struct stack_sample *s)
{
	return add(arg, s, false);
}

int
selection_add_baseline(void *arg, const struct stack_sample *s)
{
	return add(arg, s, true);
}

uint64_t
selection_samples(const struct selection *sel)
{
	return sel->samples;
}

static int
group_cmp(const void *a, const void *b)
{
	const struct group	*x = a, *y = b;
	int			c;

	if ((c = strcmp(x->host, y->host)) != 0)
		return c;
	if ((c = strcmp(x->process, y->process)) != 0)
		return c;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->gen > y->gen) - (x->gen < y->gen);
}

/* One profile per group: the tree moves into it. */
static int
take_group(struct profile *p, struct group *g)
{
	int	sts;

	memset(p, 0, sizeof(*p));
	p->pid = g->pid;
	p->gen = g->gen;
	if ((p->host = strdup(g->host)) == NULL ||
	    (p->name = strdup(g->process[0] ? g->process : "Total")) == NULL)
		return -ENOMEM;
	if ((sts = flame_tree_finish(g->tree)) < 0)
		return sts;
	p->samples = g->samples;
	p->value_us = g->value_us;
	p->tree = g->tree;
	g->tree = NULL;
	return 0;
}

int
selection_take(struct selection *sel, double start, double end,
	       struct profile **profiles, size_t *nprofiles)
{
	struct profile	*out = calloc(sel->ngroups + 1, sizeof(*out));
	size_t		i, n = 0;
	int		sts = 0;

	if (out == NULL)
		return -ENOMEM;
	if (sel->ngroups > 1)
		qsort(sel->groups, sel->ngroups, sizeof(*sel->groups), group_cmp);
	for (i = 0; i < sel->ngroups && sts == 0; i++) {
		sts = take_group(&out[n], &sel->groups[i]);
		out[n].start = start;
		out[n++].end = end;
	}
	for (i = 0; i < sel->ngroups; i++)
		group_clear(&sel->groups[i]);
	sel->ngroups = sel->last = 0;
	sel->samples = 0;
	sel->fleet = false;
	if (sts < 0) {
		profiles_free(out, n);
		return sts;
	}
	*profiles = out;
	*nprofiles = n;
	return 0;
}

void
profiles_free(struct profile *p, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(p[i].host);
		free(p[i].name);
		if (p[i].tree != NULL)
			flame_tree_free(p[i].tree);
		if (p[i].heatmap != NULL) {
			heatmap_free(p[i].heatmap);
			free(p[i].heatmap);
		}
	}
	free(p);
}

int
profiles_append(struct profile **dst, size_t *ndst, struct profile *src, size_t n)
{
	if (n == 0)
		return 0;
	if (n > SIZE_MAX - *ndst || array_resize(dst, *ndst + n) < 0)
		return -ENOMEM;
	memcpy(*dst + *ndst, src, n * sizeof(*src));
	*ndst += n;
	return 0;
}
