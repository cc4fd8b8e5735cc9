/*
 * lifetime.c - PID -> its last two lifetimes (see header).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "lifetime.h"

#define SWEEP_S		60

struct pid_lives {
	struct pid_lives *next;
	pid_t		pid;
	uint32_t	start[2];	/* [0] newest */
	uint16_t	gen[2];
	uint8_t		n;		/* lifetimes held: 1 or 2 */
	time_t		used;
};

struct lifetimes {
	struct pid_lives **bucket;
	size_t		nbuckets, n;
	time_t		swept;
};

struct lifetimes *
lifetimes_new(void)
{
	struct lifetimes	*l = calloc(1, sizeof(*l));

	if (l == NULL)
		return NULL;
	l->nbuckets = 1024;
	if ((l->bucket = calloc(l->nbuckets, sizeof(*l->bucket))) == NULL) {
		free(l);
		return NULL;
	}
	return l;
}

void
lifetimes_free(struct lifetimes *l)
{
	struct pid_lives	*e, *next;
	size_t			b;

	if (l == NULL)
		return;
	for (b = 0; b < l->nbuckets; b++)
		for (e = l->bucket[b]; e != NULL; e = next) {
			next = e->next;
			free(e);
		}
	free(l->bucket);
	free(l);
}

static size_t
bucket_of(size_t nbuckets, pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (nbuckets - 1);
}

static struct pid_lives *
find(const struct lifetimes *l, pid_t pid)
{
	struct pid_lives	*e;

	for (e = l->bucket[bucket_of(l->nbuckets, pid)]; e != NULL; e = e->next)
		if (e->pid == pid)
			return e;
	return NULL;
}

/* Keep chains short: double the buckets past two entries each. */
static void
grow(struct lifetimes *l)
{
	size_t			nb = l->nbuckets * 2, b;
	struct pid_lives	**v, *e, *next;

	if (l->n < l->nbuckets * 2 || (v = calloc(nb, sizeof(*v))) == NULL)
		return;		/* without room, chains just get longer */
	for (b = 0; b < l->nbuckets; b++)
		for (e = l->bucket[b]; e != NULL; e = next) {
			next = e->next;
			e->next = v[bucket_of(nb, e->pid)];
			v[bucket_of(nb, e->pid)] = e;
		}
	free(l->bucket);
	l->bucket = v;
	l->nbuckets = nb;
}

int
lifetimes_gen(struct lifetimes *l, pid_t pid, uint32_t start, time_t now, unsigned *gen)
{
	struct pid_lives	*e = find(l, pid);
	size_t			b;

	*gen = 0;
	if (e == NULL) {
		if ((e = calloc(1, sizeof(*e))) == NULL)
			return -ENOMEM;
		e->pid = pid;
		e->start[0] = start;
		e->n = 1;
		b = bucket_of(l->nbuckets, pid);
		e->next = l->bucket[b];
		l->bucket[b] = e;
		l->n++;
		grow(l);
	} else if (e->start[0] == start) {
		*gen = e->gen[0];
	} else if (e->n == 2 && e->start[1] == start) {
		*gen = e->gen[1];	/* the old process's last stacks */
	} else {
		e->start[1] = e->start[0];
		e->gen[1] = e->gen[0];
		e->start[0] = start;
		e->gen[0] = (uint16_t)((e->gen[0] + 1u) % LIFETIME_GENS);
		e->n = 2;
		*gen = e->gen[0];
	}
	e->used = now;
	return 0;
}

bool
lifetimes_newest(const struct lifetimes *l, pid_t pid, unsigned gen)
{
	const struct pid_lives	*e = find(l, pid);

	return e == NULL || e->gen[0] == gen;
}

void
lifetimes_forget(struct lifetimes *l, time_t now)
{
	struct pid_lives	**pp, *e;
	size_t			b;

	if (now - l->swept < SWEEP_S)
		return;
	l->swept = now;
	for (b = 0; b < l->nbuckets; b++)
		for (pp = &l->bucket[b]; (e = *pp) != NULL; ) {
			if (now - e->used >= LIFETIME_FORGET_S) {
				*pp = e->next;
				free(e);
				l->n--;
				continue;
			}
			pp = &e->next;
		}
}

size_t
lifetimes_count(const struct lifetimes *l)
{
	return l->n;
}

void
lifetime_label(char *buf, size_t len, pid_t pid, unsigned gen)
{
	if (gen == 0)
		snprintf(buf, len, "%d", (int)pid);
	else
		snprintf(buf, len, "%d.%u", (int)pid, gen);
}
