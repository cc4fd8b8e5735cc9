/*
 * interp.c - interpreter records from the symbolizer into the sampler
 * (see interp.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/pmapi.h>
#include "agent_priv.h"
#include "interp.h"

#define PENDING_MAX	64		/* starting processes retried at once */
#define PENDING_TRIES	30		/* collects (about a second each) */

struct pending {
	pid_t		tgid;
	unsigned	tries;
};

struct interp {
	struct sampler		*sampler;
	struct symbolizer	*sym;
	struct pending		pending[PENDING_MAX];
	int			npending;
};

struct interp *
interp_new(struct sampler *s, struct symbolizer *sym)
{
	struct interp *it = calloc(1, sizeof(*it));

	if (it) {
		it->sampler = s;
		it->sym = sym;
	}
	return it;
}

void
interp_free(struct interp *it)
{
	free(it);
}

/* 0 given, -EAGAIN not yet, else not (or never) an interpreter we read. */
static int
try_process(struct interp *it, pid_t tgid)
{
	struct sp_python_proc rec;
	int err = symbolizer_python_record(it->sym, tgid, &rec);

	if (err == 0 && (err = sampler_python_set(it->sampler, tgid, &rec)) < 0)
		pmNotifyErr(LOG_WARNING, "python frames for pid %d: %s", (int)tgid, strerror(-err));
	if (err != 0 && err != -EAGAIN)
		sampler_python_remove(it->sampler, tgid);	/* a describe after exec */
	return err;
}

static void
forget_pending(struct interp *it, pid_t tgid)
{
	for (int i = 0; i < it->npending; i++)
		if (it->pending[i].tgid == tgid) {
			it->pending[i] = it->pending[--it->npending];
			return;
		}
}

void
interp_describe(struct interp *it, pid_t tgid)
{
	forget_pending(it, tgid);
	if (try_process(it, tgid) == -EAGAIN && it->npending < PENDING_MAX)
		it->pending[it->npending++] = (struct pending){ .tgid = tgid };
}

void
interp_collect(struct interp *it)
{
	int out = 0;

	for (int i = 0; i < it->npending; i++) {
		struct pending p = it->pending[i];

		if (try_process(it, p.tgid) == -EAGAIN && ++p.tries < PENDING_TRIES)
			it->pending[out++] = p;
	}
	it->npending = out;
}

int
interp_set_enabled(struct interp *it, bool on)
{
	return sampler_set_interpreters(it->sampler, on);
}
