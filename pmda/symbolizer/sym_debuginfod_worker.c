/*
 * sym_debuginfod_worker.c - the threads that ask debuginfod servers for
 * debug files through elfutils' libdebuginfod, so that no lookup and no
 * pmcd fetch ever waits on the network.
 *
 * libdebuginfod 0.188 takes its settings from environment variables read
 * at each query: we set the cache directory, a low-speed timeout and no
 * retries.  Our limits sit in the progress callback, which libdebuginfod
 * calls at least once a second while it waits: no answer within
 * first_byte_ns, the whole request over total_ns, an announced length or
 * more bytes received than file_max_bytes, a URL change or shutdown each
 * abort the request.  Servers are told the cap (X-DEBUGINFOD-MAXSIZE) so
 * that debuginfod refuses larger files before sending them.
 *
 * Not DEBUGINFOD_MAXSIZE nor DEBUGINFOD_MAXTIME: 0.188 then calls
 * dprintf(-1, ...) (a `vfd` test missing its `>= 0`), and glibc 2.36
 * leaks 8 KiB on that failed call: every request, for months.
 *
 * The URL list changes while workers run.  glibc's setenv of a variable
 * that already exists swaps one pointer in environ and never frees the old
 * string, so a worker's getenv sees the old or the new list, both intact;
 * dfd_worker_env makes sure DEBUGINFOD_URLS exists before any thread runs.
 */
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sym_debuginfod_priv.h"
#include "lib/clock.h"

enum abort_reason { ABORT_NONE, ABORT_CANCEL, ABORT_TIMEOUT, ABORT_TOO_BIG };

/* One request, as the progress callback sees it. */
struct request {
	struct sym_debuginfod *d;
	unsigned	urls_gen;
	uint64_t	t0;
	enum abort_reason why;
};

int
dfd_worker_env(const struct dfd_config *cfg)
{
	char num[32];
	/* a low speed (< 100 KB/s) for this long also ends a request */
	unsigned slow_s = (unsigned)(cfg->first_byte_ns / 1000000000u);

	if (slow_s < 10)
		slow_s = 10;
	if (setenv(DEBUGINFOD_CACHE_PATH_ENV_VAR, cfg->cache_dir, 1) != 0)
		return -errno;
	snprintf(num, sizeof(num), "%u", slow_s);
	setenv(DEBUGINFOD_TIMEOUT_ENV_VAR, num, 1);
	unsetenv(DEBUGINFOD_MAXSIZE_ENV_VAR);	/* see the top of this file */
	unsetenv(DEBUGINFOD_MAXTIME_ENV_VAR);
	/* a failure is retried by us after retry_s, not at once */
	setenv(DEBUGINFOD_RETRY_LIMIT_ENV_VAR, "0", 1);
	/* it must exist before threads run (see the top of this file); an
	 * inherited value stays until symbolizer_set_debuginfod replaces it */
	if (getenv(DEBUGINFOD_URLS_ENV_VAR) == NULL &&
	    setenv(DEBUGINFOD_URLS_ENV_VAR, "", 1) != 0)
		return -errno;
	return 0;
}

void
dfd_worker_set_urls(const char *urls)
{
	setenv(DEBUGINFOD_URLS_ENV_VAR, urls, 1);
}

static int
progress(debuginfod_client *c, long a, long b)
{
	struct request *r = debuginfod_get_user_data(c);
	bool answering;
	uint64_t elapsed;

	if (r == NULL)
		return 0;
	/* libdebuginfod names the URL once a server sends the body; a is then
	 * the bytes received, b the announced length (0 or -1 when unknown) */
	answering = debuginfod_get_url(c) != NULL;
	elapsed = clock_mono_ns() - r->t0;
	if (atomic_load(&r->d->stop) || atomic_load(&r->d->urls_gen) != r->urls_gen)
		r->why = ABORT_CANCEL;
	else if (answering && ((uint64_t)a > r->d->cfg.file_max_bytes ||
			       (b > 0 && (uint64_t)b > r->d->cfg.file_max_bytes)))
		r->why = ABORT_TOO_BIG;
	else if ((!answering && elapsed > r->d->cfg.first_byte_ns) || elapsed > r->d->cfg.total_ns)
		r->why = ABORT_TIMEOUT;
	return r->why != ABORT_NONE;
}

static enum dfd_outcome
failure_outcome(int rc, enum abort_reason why)
{
	switch (why) {
	case ABORT_CANCEL:	return DFD_CANCELLED;
	case ABORT_TOO_BIG:	return DFD_REJECTED;
	case ABORT_TIMEOUT:	return DFD_TIMEOUT;
	case ABORT_NONE:	break;
	}
	switch (rc) {
	case -ENOENT:		return DFD_NOT_FOUND;
	case -EFBIG:		return DFD_REJECTED;	/* HTTP 406: over the cap we sent */
	case -ETIME:		return DFD_TIMEOUT;
	default:		return DFD_NET_ERROR;
	}
}

/* Ask for job's debug file and verify what comes back. */
static void
fetch(struct sym_debuginfod *d, debuginfod_client *c, const struct dfd_job *job,
      struct dfd_result *res)
{
	struct request r = { .d = d, .urls_gen = job->urls_gen, .t0 = clock_mono_ns() };
	char target[PATH_MAX], *path = NULL, maxsize[64];
	struct stat st;
	int fd;

	dfd_disk_target(d->cfg.cache_dir, job->id, job->idlen, target, sizeof(target));
	res->network = !(stat(target, &st) == 0 && st.st_size > 0);
	/* libdebuginfod drops added headers after each query */
	snprintf(maxsize, sizeof(maxsize), "X-DEBUGINFOD-MAXSIZE: %llu",
		 (unsigned long long)d->cfg.file_max_bytes);
	debuginfod_add_http_header(c, maxsize);
	debuginfod_set_user_data(c, &r);
	fd = debuginfod_find_debuginfo(c, job->id, job->idlen, &path);
	debuginfod_set_user_data(c, NULL);
	res->us = (clock_mono_ns() - r.t0) / 1000;
	if (fd < 0) {
		res->outcome = failure_outcome(fd, r.why);
		/* libdebuginfod leaves an empty file as its own negative cache:
		 * ours decides when to ask again, and a new URL list asks at once */
		dfd_disk_forget(target);
		return;
	}
	if (fstat(fd, &st) == 0 && res->network)
		res->bytes = st.st_size;
	res->parsed = dfd_verify(fd, job->id, job->idlen, d->cfg.file_max_bytes);
	close(fd);
	if (res->parsed == NULL) {
		res->outcome = DFD_REJECTED;
		dfd_disk_forget(target);	/* not kept, and asked again after retry_s */
	} else {
		res->outcome = DFD_GOT;
		dfd_disk_touch(target);
	}
	free(path);
}

static void *
worker_main(void *arg)
{
	struct sym_debuginfod *d = arg;
	debuginfod_client *c = debuginfod_begin();
	struct dfd_job job;

	if (c == NULL)
		return NULL;
	debuginfod_set_progressfn(c, progress);
	while (dfd_next_job(d, &job)) {
		struct dfd_result res = { .outcome = DFD_NET_ERROR };

		fetch(d, c, &job, &res);
		if (res.network && res.outcome == DFD_GOT) {
			pthread_mutex_lock(&d->disk_lock);
			res.cache_bytes = dfd_disk_trim(d->cfg.cache_dir, d->cfg.cache_max_bytes);
			res.cache_bytes_known = true;
			pthread_mutex_unlock(&d->disk_lock);
		}
		dfd_finish_job(d, &job, &res);
	}
	debuginfod_end(c);
	return NULL;
}

/* Called with d->lock held. */
int
dfd_workers_start(struct sym_debuginfod *d)
{
	sigset_t all, old;
	int sts = 0;

	/* signals stay with the main thread (pmcd's SIGTERM, SIGPIPE, ...) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	while (d->nthreads < d->cfg.workers) {
		if ((sts = -pthread_create(&d->threads[d->nthreads], NULL, worker_main, d)) < 0)
			break;
		d->nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d->nthreads > 0 ? 0 : sts;
}

void
dfd_workers_join(struct sym_debuginfod *d)
{
	for (unsigned i = 0; i < d->nthreads; i++)
		pthread_join(d->threads[i], NULL);
	d->nthreads = 0;
}
