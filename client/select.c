/*
 * select.c - filter stacks and build one tree per (host, process).
 *
 * Trees are always built per process first; the host view is made at the
 * end by re-rooting every process tree under Total -> [p] name.  That
 * keeps adding a sample to one cheap path and lets the choice of root
 * depend on what was actually selected (several processes, no --total:
 * the host view is the only honest single picture).
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "select.h"

struct group {
	char		*host;
	char		*process;
	uint32_t	pid;		/* only with --multi-instance */
	uint64_t	samples, value_us;
	struct flame_tree *tree;	/* rooted at the process name */
};

struct selection {
	struct select_options opts;
	regex_t		re;
	bool		have_re;
	struct group	*groups;
	size_t		ngroups, cap;
	size_t		last;		/* cache: consecutive samples share a group */
	uint64_t	samples;
	/* scratch for splitting a stack into a path */
	char		*buf;
	size_t		buflen;
	const char	**path;
	size_t		pathcap;
};

struct selection *
selection_new(const struct select_options *o, char *err, size_t errlen)
{
	struct selection	*sel = calloc(1, sizeof(*sel));
	char			*anchored;
	int			sts;

	if (sel == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	sel->opts = *o;
	if (o->process != NULL) {
		/* the regex must match the whole name: "java" is not "javac" */
		if (asprintf(&anchored, "^(%s)$", o->process) < 0) {
			free(sel);
			snprintf(err, errlen, "out of memory");
			return NULL;
		}
		sts = regcomp(&sel->re, anchored, REG_EXTENDED | REG_NOSUB);
		free(anchored);
		if (sts != 0) {
			char	msg[128];

			regerror(sts, &sel->re, msg, sizeof(msg));
			snprintf(err, errlen, "--process %s: %s", o->process, msg);
			free(sel);
			return NULL;
		}
		sel->have_re = true;
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
	if (sel->have_re)
		regfree(&sel->re);
	free(sel->buf);
	free(sel->path);
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
	if (sel->have_re && strcmp(sel->opts.process, s->process) != 0 &&
	    regexec(&sel->re, s->process, 0, NULL, 0) != 0)
		return false;
	return true;
}

bool
selection_wants(const struct selection *sel, const struct stack_sample *s)
{
	return wanted(sel, s);
}

static struct group *
find_group(struct selection *sel, const char *host, const char *process, uint32_t pid)
{
	struct group	*g;
	size_t		i;

	if (!sel->opts.multi_instance)
		pid = 0;
	for (i = 0; i < sel->ngroups; i++) {
		size_t	k = (sel->last + i) % sel->ngroups;

		g = &sel->groups[k];
		if (g->pid == pid && strcmp(g->process, process) == 0 &&
		    strcmp(g->host, host) == 0) {
			sel->last = k;
			return g;
		}
	}
	if (sel->ngroups == sel->cap) {
		size_t	cap = sel->cap ? sel->cap * 2 : 16;
		void	*p = realloc(sel->groups, cap * sizeof(*sel->groups));

		if (p == NULL)
			return NULL;
		sel->groups = p;
		sel->cap = cap;
	}
	g = &sel->groups[sel->ngroups];
	memset(g, 0, sizeof(*g));
	g->pid = pid;
	if ((g->host = strdup(host)) == NULL || (g->process = strdup(process)) == NULL ||
	    (g->tree = flame_tree_new()) == NULL) {
		group_clear(g);
		return NULL;
	}
	sel->last = sel->ngroups++;
	return g;
}

/* Grow the scratch buffers to hold a copy of the stack and its frames. */
static int
scratch_reserve(struct selection *sel, size_t len, size_t nframes)
{
	if (len + 1 > sel->buflen) {
		char	*p = realloc(sel->buf, len + 1);

		if (p == NULL)
			return -ENOMEM;
		sel->buf = p;
		sel->buflen = len + 1;
	}
	if (nframes > sel->pathcap) {
		const char	**p = realloc(sel->path, nframes * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		sel->path = p;
		sel->pathcap = nframes;
	}
	return 0;
}

/* path = process, [t] thread (when given), then the non-empty frames. */
static size_t
split_path(struct selection *sel, const struct stack_sample *s, char *thread_frame)
{
	size_t	n = 0;
	char	*p, *semi;

	sel->path[n++] = s->process;
	if (s->thread != NULL)
		sel->path[n++] = thread_frame;
	strcpy(sel->buf, s->stack);
	for (p = sel->buf; p != NULL; p = semi) {
		if ((semi = strchr(p, ';')) != NULL)
			*semi++ = '\0';
		if (*p != '\0')
			sel->path[n++] = p;
	}
	return n;
}

int
selection_add(void *arg, const struct stack_sample *s)
{
	struct selection	*sel = arg;
	struct group		*g;
	char			*thread_frame = NULL;
	const char		*c;
	size_t			len = strlen(s->stack), nframes = 3, n;
	int			sts;

	if (!wanted(sel, s) || s->count == 0)
		return 0;
	for (c = s->stack; *c; c++)
		nframes += (*c == ';');
	if ((sts = scratch_reserve(sel, len, nframes)) < 0)
		return sts;
	if (s->thread != NULL && asprintf(&thread_frame, "[t] %s", s->thread) < 0)
		return -ENOMEM;
	if ((g = find_group(sel, s->host, s->process, s->pid)) == NULL) {
		free(thread_frame);
		return -ENOMEM;
	}
	n = split_path(sel, s, thread_frame);
	sts = flame_tree_add(g->tree, sel->path, n, s->count, s->value_us);
	free(thread_frame);
	if (sts < 0)
		return sts;
	g->samples += s->count;
	g->value_us += s->value_us;
	sel->samples += s->count;
	return 0;
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
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/*
 * Add every path of a finished process tree to the host view, under
 * Total -> [p] process.  Nodes come in pre-order, so path[0..depth-1]
 * always holds the current node's ancestors.
 */
static int
reroot_into(struct flame_tree *total, const struct group *g)
{
	const struct flame_tree	*t = g->tree;
	size_t			i, nn = flame_tree_nnodes(t);
	uint32_t		maxd = flame_tree_max_depth(t);
	const char		**path = calloc((size_t)maxd + 2, sizeof(*path));
	char			*pframe = NULL;
	int			sts = 0;

	if (path == NULL || asprintf(&pframe, "[p] %s", g->process) < 0) {
		free(path);
		return -ENOMEM;
	}
	path[0] = "Total";
	path[1] = pframe;
	for (i = 0; i < nn && sts == 0; i++) {
		const struct flame_node	*nd = flame_tree_node(t, i);

		if (nd->depth > 0)
			path[nd->depth + 1] = flame_tree_function(t, nd->function)->name;
		if (nd->self_samples > 0 || nd->self_us > 0)
			sts = flame_tree_add(total, path, nd->depth + 2,
					     nd->self_samples, nd->self_us);
	}
	free(pframe);
	free(path);
	return sts;
}

static int
profile_init(struct profile *p, const char *host, const char *name, uint32_t pid)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if ((p->host = strdup(host)) == NULL || (p->name = strdup(name)) == NULL)
		return -ENOMEM;
	return 0;
}

/* One profile per group (--multi-instance, or a host with one process). */
static int
take_group(struct profile *p, struct group *g)
{
	int	sts;

	if ((sts = profile_init(p, g->host, g->process, g->pid)) < 0)
		return sts;
	p->samples = g->samples;
	p->value_us = g->value_us;
	p->tree = g->tree;
	g->tree = NULL;
	return 0;
}

/* groups[0..n-1] share a host: merge them into one host view. */
static int
take_host_view(struct profile *p, struct group *groups, size_t n)
{
	size_t	i;
	int	sts;

	if ((sts = profile_init(p, groups[0].host, "Total", 0)) < 0)
		return sts;
	if ((p->tree = flame_tree_new()) == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if ((sts = reroot_into(p->tree, &groups[i])) < 0)
			return sts;
		p->samples += groups[i].samples;
		p->value_us += groups[i].value_us;
	}
	return flame_tree_finish(p->tree);
}

int
selection_take(struct selection *sel, struct profile **profiles, size_t *nprofiles)
{
	struct profile	*out = calloc(sel->ngroups + 1, sizeof(*out));
	size_t		i, j, n = 0;
	int		sts = 0;

	if (out == NULL)
		return -ENOMEM;
	if (sel->ngroups > 1)
		qsort(sel->groups, sel->ngroups, sizeof(*sel->groups), group_cmp);
	for (i = 0; i < sel->ngroups && sts == 0; i++)
		sts = flame_tree_finish(sel->groups[i].tree);
	for (i = 0; i < sel->ngroups && sts == 0; i = j) {
		for (j = i + 1; j < sel->ngroups &&
		     strcmp(sel->groups[j].host, sel->groups[i].host) == 0; j++)
			;
		if (sel->opts.multi_instance || (!sel->opts.total && j - i == 1)) {
			for (; i < j && sts == 0; i++)
				sts = take_group(&out[n++], &sel->groups[i]);
		} else
			sts = take_host_view(&out[n++], &sel->groups[i], j - i);
	}
	for (i = 0; i < sel->ngroups; i++)
		group_clear(&sel->groups[i]);
	sel->ngroups = sel->last = 0;
	sel->samples = 0;
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
	}
	free(p);
}
