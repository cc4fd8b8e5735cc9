/*
 * select.h - keep the stacks the user asked for (--process, --pid,
 * --event) and arrange them into profiles: one tree per host, rooted at the
 * process, or at Total (host view: Total -> [p] process -> [t] thread ->
 * frames) with --total or when several processes were selected; with
 * --multi-instance one tree per process.  With --total and several hosts
 * one fleet view, Total -> [h] host -> [p] process -> ...; with
 * --merge-hosts the hosts are one (FLEET_HOST), so a process's stacks
 * from every host make one profile.
 */
#ifndef SELECT_H
#define SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/sample.h"
#include "tree.h"

struct select_options {
	const char	*process;	/* NAME or extended regex matching the whole name */
	const uint32_t	*pids;		/* keep only these process ids ... */
	size_t		npids;		/* ... when npids > 0 */
	const char	*event;		/* keep records of this event type; NULL = all */
	bool		total;		/* host view */
	bool		multi_instance;	/* one profile per process */
	bool		normalize;	/* differential: baseline scaled to the same total */
	bool		merge_hosts;	/* one profile per process across all hosts */
	bool		lines;		/* Python frames per line, not per function */
};

/* The host of a profile of several hosts: --total's fleet view (Total ->
 * [h] host -> [p] process -> ...), and --merge-hosts' profiles. */
#define FLEET_HOST	"fleet"

/* What a profile holds, and so which formats render it. */
enum profile_kind {
	PROFILE_FLAME,			/* a flame tree: json, svg, folded, ... */
	PROFILE_HEATMAP,		/* a host's heat map (heatmaps.h) */
};

struct heatmap;

struct profile {
	enum profile_kind kind;
	char		*host;
	char		*name;		/* root frame: process name or "Total" */
	uint32_t	pid;		/* --multi-instance with a pid, else 0 */
	uint32_t	gen;		/* and which process of that pid (sample.h) */
	double		start, end;	/* time range covered */
	uint64_t	samples;
	uint64_t	value_us;
	struct flame_tree *tree;	/* finished (PROFILE_FLAME) */
	struct heatmap	*heatmap;	/* finished (PROFILE_HEATMAP) */
	uint64_t	stack_samples;	/* PROFILE_HEATMAP: samples in its stacks */
};

struct selection;

struct selection *selection_new(const struct select_options *o, char *err, size_t errlen);
void selection_free(struct selection *sel);

/* A stack_sample_fn: arg is the selection.  Filtered samples return 0. */
int selection_add(void *sel, const struct stack_sample *s);

/* The same for the baseline of a differential profile (--baseline): the
 * sample goes to the second column of the tree it would go to.  Baseline
 * samples alone make no profile's sample count. */
int selection_add_baseline(void *sel, const struct stack_sample *s);

/* Would selection_add keep this sample?  (Heat maps filter their
 * per-second stacks with it.) */
bool selection_wants(const struct selection *sel, const struct stack_sample *s);

/* Samples kept since the last take (across hosts). */
uint64_t selection_samples(const struct selection *sel);

/*
 * Finish every tree built since the last call and hand the profiles over,
 * sorted by host, name and pid, with start and end set; the selection
 * starts empty again (live --period mode).  Returns 0 or -ENOMEM.
 */
int selection_take(struct selection *sel, double start, double end,
		   struct profile **profiles, size_t *n);
/* Append src[0..n) to *dst (*ndst of them), which src's contents move to:
 * free src with free(), not profiles_free().  0 or -ENOMEM (nothing moved). */
int profiles_append(struct profile **dst, size_t *ndst, struct profile *src, size_t n);
void profiles_free(struct profile *p, size_t n);

#endif /* SELECT_H */
