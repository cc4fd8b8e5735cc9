/*
 * interval.c - one drain's stacks merged by name (see header).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "interval.h"
#include "lib/hash.h"

struct interval_stacks {
	struct hash_chain	index;		/* by (tid, thread, frames) */
	struct interval_stack	*first, **last;
};

static uint64_t
hash_of(pid_t tid, const char *thread, const char *frames)
{
	return hash_bytes(frames, strlen(frames)) ^
	       hash_mix(hash_bytes(thread, strlen(thread)) + (uint64_t)(uint32_t)tid);
}

struct interval_stacks *
interval_new(void)
{
	struct interval_stacks	*iv = calloc(1, sizeof(*iv));

	if (iv && hash_chain_init(&iv->index, 0) < 0) {
		free(iv);
		return NULL;
	}
	if (iv)
		iv->last = &iv->first;
	return iv;
}

static void
empty(struct interval_stacks *iv)
{
	struct interval_stack	*st, *next;

	for (st = iv->first; st != NULL; st = next) {
		next = st->order_next;
		free(st->frames);
		free(st);
	}
	hash_chain_clear(&iv->index);
	iv->first = NULL;
	iv->last = &iv->first;
}

void
interval_free(struct interval_stacks *iv)
{
	if (iv == NULL)
		return;
	empty(iv);
	hash_chain_free(&iv->index);
	free(iv);
}

int
interval_add(struct interval_stacks *iv, pid_t pid, unsigned gen, pid_t tid,
	     const char *process, const char *thread, const char *frames,
	     uint64_t count)
{
	uint64_t		h = hash_of(tid, thread, frames);
	struct interval_stack	*st;
	struct hash_link	*l;

	for (l = hash_chain_first(&iv->index, h); l != NULL; l = hash_chain_next(l)) {
		st = hash_chain_entry(l, struct interval_stack, link);
		if (st->pid == pid && st->gen == gen && st->tid == tid &&
		    strcmp(st->thread, thread) == 0 && strcmp(st->frames, frames) == 0) {
			st->count += count;
			return 0;
		}
	}
	if ((st = calloc(1, sizeof(*st))) == NULL || (st->frames = strdup(frames)) == NULL) {
		free(st);
		return -ENOMEM;
	}
	st->pid = pid;
	st->gen = gen;
	st->tid = tid;
	snprintf(st->process, sizeof(st->process), "%s", process);
	snprintf(st->thread, sizeof(st->thread), "%s", thread);
	st->count = count;
	hash_chain_add(&iv->index, &st->link, h);
	*iv->last = st;
	iv->last = &st->order_next;
	return 0;
}

void
interval_flush(struct interval_stacks *iv,
	       void (*fn)(void *arg, const struct interval_stack *st), void *arg)
{
	struct interval_stack	*st;

	for (st = iv->first; st != NULL; st = st->order_next)
		fn(arg, st);
	empty(iv);
}
