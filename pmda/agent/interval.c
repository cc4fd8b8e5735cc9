/*
 * interval.c - one drain's stacks merged by name (see header).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "interval.h"

#define INTERVAL_BUCKETS	4096

struct interval_stacks {
	struct interval_stack	*bucket[INTERVAL_BUCKETS];
	struct interval_stack	*first, **last;
};

static unsigned
hash_of(pid_t tid, const char *thread, const char *frames)
{
	uint32_t	h = 2166136261u ^ (uint32_t)tid;	/* FNV-1a */
	const char	*p;

	for (p = thread; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	for (p = frames; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h % INTERVAL_BUCKETS;
}

struct interval_stacks *
interval_new(void)
{
	struct interval_stacks	*iv = calloc(1, sizeof(*iv));

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
	memset(iv->bucket, 0, sizeof(iv->bucket));
	iv->first = NULL;
	iv->last = &iv->first;
}

void
interval_free(struct interval_stacks *iv)
{
	if (iv == NULL)
		return;
	empty(iv);
	free(iv);
}

int
interval_add(struct interval_stacks *iv, pid_t pid, pid_t tid,
	     const char *process, const char *thread, const char *frames,
	     uint64_t count)
{
	unsigned		b = hash_of(tid, thread, frames);
	struct interval_stack	*st;

	for (st = iv->bucket[b]; st != NULL; st = st->hash_next)
		if (st->pid == pid && st->tid == tid &&
		    strcmp(st->thread, thread) == 0 && strcmp(st->frames, frames) == 0) {
			st->count += count;
			return 0;
		}
	if ((st = calloc(1, sizeof(*st))) == NULL || (st->frames = strdup(frames)) == NULL) {
		free(st);
		return -ENOMEM;
	}
	st->pid = pid;
	st->tid = tid;
	snprintf(st->process, sizeof(st->process), "%s", process);
	snprintf(st->thread, sizeof(st->thread), "%s", thread);
	st->count = count;
	st->hash_next = iv->bucket[b];
	iv->bucket[b] = st;
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
