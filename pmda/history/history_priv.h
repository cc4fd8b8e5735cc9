/*
 * history_priv.h - the queue and dictionaries behind history.h.  Private to
 * history.c, history_dict.c and history_fetch.c (and the unit test).
 *
 * A dictionary numbers keys (a thread's "PID TID COMM<TAB>PROCESS", a
 * frame's name, a stack's frame ids "3,4,5") in the order they first
 * appear; ids are never reused.  A stack holds its frames (refs), so a
 * frame lives as long as a stack that names it.
 * Each entry remembers which client slots were told its definition (one
 * bit per slot) and how many queued batch items point at it; an entry no
 * batch holds and unused for HISTORY_FORGET_S seconds is forgotten (if its
 * key comes back it gets a new id and is defined again).
 */
#ifndef HISTORY_PRIV_H
#define HISTORY_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/time.h>
#include <time.h>
#include "pipeline/cursors.h"
#include "history.h"
#include "lib/hash_chain.h"

#define HISTORY_FORGET_S	600
#define HISTORY_MAX_ENTRIES	200000	/* per dictionary: beyond, forget the oldest unused */
#define HISTORY_SLOTS		64	/* clients told definitions; others get every one */

struct hist_entry {
	struct hash_link link;			/* in its dictionary's index */
	struct hist_entry *newer, *older;	/* use order, newest at the head */
	uint64_t	id;
	uint64_t	told;			/* bit per client slot */
	uint64_t	written;		/* serial of the last text defining it */
	unsigned	refs;			/* batch items (stacks) holding it */
	time_t		used;			/* last drain that added it */
	struct hist_entry **parts;		/* a stack's frames, root first;
						 * a pair's thread and stack */
	unsigned	nparts;
	char		*label;			/* a pair's instance name, or NULL */
	char		key[];
};

struct hist_dict {
	struct hash_chain index;		/* by key; index.count entries */
	struct hist_entry *newest, *oldest;
	uint64_t	next_id;
};

int hist_dict_init(struct hist_dict *d);
void hist_dict_free(struct hist_dict *d);
/* The entry for key (created with the next id: *created), marked used at
 * now; NULL when out of memory. */
struct hist_entry *hist_dict_get(struct hist_dict *d, const char *key, time_t now,
				 bool *created);
/* Forget entries no batch holds, unused since before now - HISTORY_FORGET_S
 * (or the oldest unused ones beyond HISTORY_MAX_ENTRIES). */
void hist_dict_forget(struct hist_dict *d, time_t now);
/* Client slot went away: no entry counts as told to it any more. */
void hist_dict_untell(struct hist_dict *d, int slot);

/* The queue of batches and its clients (history.c, history_fetch.c). */
/* A fetch takes whole batches up to this many items (more wait for the
 * next fetch), so one value stays far below PCP's 16 MB. */
#define HISTORY_FETCH_ITEMS	100000
#define HISTORY_KEY_MAX		4096

struct hist_item {
	struct hist_entry *thread, *stack;
	uint64_t	count, value;
};

struct hist_batch {
	struct hist_batch *next;
	uint64_t	seq;
	struct timeval	when;
	unsigned	hz;
	size_t		n, cap;
	struct hist_item *items;
	uint64_t	*heat;		/* slice counts of this drain, or NULL */
	unsigned	nheat;
};

struct text {
	char	*p;
	size_t	len, cap;
	bool	failed;
};

struct history {
	history_value_fn value;
	size_t		max_bytes, queued_bytes;
	struct hist_dict threads, frames, stacks;
	struct hist_dict pairs;			/* (thread, stack): flame instances */
	struct hist_batch *head, *tail, *building;
	uint64_t	next_seq;
	time_t		now;
	struct cursors	clients;	/* slot: bit in hist_entry.told, or -1 */
	uint64_t	slots;		/* bit per client slot in use */
	uint64_t	serial;		/* texts written */
	unsigned	keyframe_s;	/* 0: no keyframes */
	struct hist_item *merged;
	size_t		mergecap;
	struct hist_entry **defs;		/* stacks a text defines */
	size_t		defcap;
	struct text	text;
	char		key[HISTORY_KEY_MAX];	/* a thread's */
	char		*skey;			/* a stack's, grown */
	size_t		skeycap;
	char		*frame;			/* one frame's name, cleaned */
	size_t		framecap;
	struct hist_entry **parts;		/* a stack's frames, grown */
	size_t		partscap;
	struct history_stats st;

	/* the last drain, for history_flame (history_flame.c) */
	struct hist_item *last;
	size_t		nlast, lastcap;
	uint64_t	last_serial, flame_serial;	/* drains; flame built for */
	struct history_flame *flame;
	size_t		nflame, flamecap;
	char		*lbuf;
	size_t		lbufcap;
};

void hist_flame_free(struct history *h);

void hist_trim(struct history *h);

#endif /* HISTORY_PRIV_H */
