/*
 * series_prefetch.c - the first /series/values answers, one thread ahead
 * of the reader (series_prefetch.h).
 *
 * pmproxy 6.0.3 formats a series' values on one thread and the reader
 * decodes them on another; asked one after the other, a fleet's read is
 * the sum of both (bench/series).  The thread keeps at most AHEAD answers
 * the reader has not taken, which bounds the memory to that many pages.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "series_prefetch.h"
#include "series_rest.h"

#define AHEAD	2

struct job {
	char	*query;
	cJSON	*answer;
	char	err[256];
	bool	done;
};

struct series_prefetch {
	pthread_t		thread;
	pthread_mutex_t		lock;
	pthread_cond_t		cond;
	struct series_rest	*rest;
	struct job		*jobs;
	int			n;
	int			taken;		/* jobs the reader has taken */
	bool			stop;
};

static void *
ask_all(void *arg)
{
	struct series_prefetch	*p = arg;

	for (int i = 0; i < p->n; i++) {
		struct job	*j = &p->jobs[i];
		cJSON		*answer;
		bool		stop;

		pthread_mutex_lock(&p->lock);
		while (!p->stop && i - p->taken >= AHEAD)
			pthread_cond_wait(&p->cond, &p->lock);
		stop = p->stop;		/* read under the lock: stop() writes it */
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
		answer = series_rest_get(p->rest, "values", j->query, j->err, sizeof(j->err));
		pthread_mutex_lock(&p->lock);
		j->answer = answer;
		j->done = true;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

static void
free_jobs(struct series_prefetch *p)
{
	for (int i = 0; i < p->n; i++) {
		free(p->jobs[i].query);
		cJSON_Delete(p->jobs[i].answer);
	}
	free(p->jobs);
}

struct series_prefetch *
series_prefetch_start(const char *url, const char *const *queries, int n)
{
	struct series_prefetch	*p = calloc(1, sizeof(*p));
	char			err[256];
	bool			ok = p != NULL && n > 0;

	if (ok && (p->jobs = calloc((size_t)n, sizeof(*p->jobs))) == NULL)
		ok = false;
	for (int i = 0; ok && i < n; i++, p->n++)
		ok = (p->jobs[i].query = strdup(queries[i])) != NULL;
	if (ok)
		ok = (p->rest = series_rest_open(url, err, sizeof(err))) != NULL;
	if (ok) {
		pthread_mutex_init(&p->lock, NULL);
		pthread_cond_init(&p->cond, NULL);
		if (pthread_create(&p->thread, NULL, ask_all, p) == 0)
			return p;
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
	}
	if (p != NULL) {
		series_rest_close(p->rest);
		free_jobs(p);
		free(p);
	}
	return NULL;
}

cJSON *
series_prefetch_take(struct series_prefetch *p, int i, char *err, size_t errlen)
{
	struct job	*j = &p->jobs[i];
	cJSON		*answer;

	pthread_mutex_lock(&p->lock);
	while (!j->done)
		pthread_cond_wait(&p->cond, &p->lock);
	answer = j->answer;
	j->answer = NULL;
	if (answer == NULL)
		snprintf(err, errlen, "%s", j->err);
	p->taken = i + 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return answer;
}

void
series_prefetch_stop(struct series_prefetch *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	series_rest_close(p->rest);
	free_jobs(p);
	free(p);
}
