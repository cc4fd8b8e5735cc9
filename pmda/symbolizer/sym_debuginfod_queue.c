/*
 * sym_debuginfod_queue.c - the queue between the build-id table and the
 * workers: a wanted build-id is queued (dfd_enqueue, from the symbolizer's
 * side or a worker whose URLs changed), a worker takes the oldest
 * (dfd_next_job, blocking until there is one or stop) and records what
 * became of it (dfd_finish_job: symbols ready, failed until retry_s, or
 * queued again for new servers) with the counters.  Its own file so that
 * the workers depend on it and not on the table's side, which starts them.
 * d->lock guards it all: dfd_enqueue's callers hold it, the workers' two
 * calls take it.
 */
#include <string.h>
#include "sym_debuginfod_priv.h"
#include "lib/clock.h"

void
dfd_enqueue(struct sym_debuginfod *d, struct dfd_entry *en)
{
	en->state = DFD_QUEUED;
	en->seq = ++d->next_seq;
	pthread_cond_signal(&d->wake);
}

bool
dfd_next_job(struct sym_debuginfod *d, struct dfd_job *job)
{
	struct dfd_entry *pick;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		pick = NULL;
		if (atomic_load(&d->stop))
			break;
		for (int i = 0; i < DFD_ENTRIES && d->urls[0]; i++)
			if (d->ent[i].state == DFD_QUEUED && (pick == NULL || d->ent[i].seq < pick->seq))
				pick = &d->ent[i];
		if (pick)
			break;
		pthread_cond_wait(&d->wake, &d->lock);
	}
	if (pick) {
		pick->state = DFD_RUNNING;
		job->slot = (int)(pick - d->ent);
		memcpy(job->id, pick->id, pick->idlen);
		job->idlen = pick->idlen;
		job->urls_gen = atomic_load(&d->urls_gen);
	}
	pthread_mutex_unlock(&d->lock);
	return pick != NULL;
}

static void
count(struct symbolizer_debuginfod_stats *cnt, const struct dfd_result *res)
{
	if (!res->network)
		return;		/* the disk cache answered: no request made */
	cnt->requests++;
	cnt->bytes += res->bytes;
	if (res->us > cnt->slowest_us)
		cnt->slowest_us = res->us;
	switch (res->outcome) {
	case DFD_GOT:		cnt->hits++; break;
	case DFD_NOT_FOUND:	cnt->misses++; break;
	case DFD_REJECTED:	cnt->rejected++; cnt->failures++; break;
	case DFD_NET_ERROR:
	case DFD_TIMEOUT:	cnt->failures++; break;
	case DFD_CANCELLED:	break;
	}
}

void
dfd_finish_job(struct sym_debuginfod *d, const struct dfd_job *job, struct dfd_result *res)
{
	struct dfd_entry *en = &d->ent[job->slot];	/* running: never reused */

	pthread_mutex_lock(&d->lock);
	count(&d->cnt, res);
	if (res->cache_bytes_known)
		d->cnt.cache_bytes = res->cache_bytes;
	if (res->outcome == DFD_GOT) {
		/* verified against the build-id: good whichever server sent it */
		en->state = DFD_READY;
		en->parsed = res->parsed;
		res->parsed = NULL;
	} else if (res->outcome == DFD_CANCELLED || job->urls_gen != atomic_load(&d->urls_gen)) {
		if (d->urls[0] && !atomic_load(&d->stop))
			dfd_enqueue(d, en);		/* ask the new servers */
		else
			en->state = DFD_FREE;
	} else {
		en->state = DFD_FAILED;
		en->retry_ns = clock_mono_ns() + d->cfg.retry_ns;
	}
	pthread_mutex_unlock(&d->lock);
}
