/*
 * sampler_pagefault.c - the page-fault profile: a PAGE_FAULTS software
 * event per online CPU, sampling one fault in pagefault_period and running
 * pagefault_sample(), which counts the sample as that many faults.  The
 * BPF program reads the period from .bss, so the events and .bss change
 * together: old events closed, running programs waited for, .bss set, new
 * events opened.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include "fence_priv.h"
#include "sampler_priv.h"
#include "stackprof.skel.h"

static struct perf_event_attr
page_faults(unsigned period)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = period,
	};

	return attr;
}

int
sampler_pagefault_attach(struct sampler *s)
{
	struct perf_event_attr attr = page_faults(s->pagefault_period);

	__atomic_store_n(&s->skel->bss->pagefault_period, s->pagefault_period, __ATOMIC_SEQ_CST);
	return cpu_events_attach(s, &s->faults, &attr, s->skel->progs.pagefault_sample);
}

void
sampler_pagefault_detach(struct sampler *s)
{
	cpu_events_detach(s, &s->faults);
}

/* As sampler_cpus_refresh, for the page-fault events. */
int
sampler_pagefault_refresh(struct sampler *s)
{
	if (!s->enabled || !s->pagefault_on || !cpu_events_stale(s, &s->faults))
		return 0;
	return sampler_pagefault_attach(s);
}

int
sampler_set_pagefault(struct sampler *s, bool on)
{
	int err = 0;

	if (on == s->pagefault_on)
		return 0;
	if (s->enabled)
		err = on ? sampler_pagefault_attach(s) : (sampler_pagefault_detach(s), 0);
	if (err < 0)
		return err;
	s->pagefault_on = on;
	return 0;
}

/*
 * While the events run, a sample taken with the old period must not be
 * counted with the new one: the old events are closed and the programs
 * they started waited for before .bss changes.  Faults in between are not
 * sampled (a few milliseconds).
 */
int
sampler_set_pagefault_period(struct sampler *s, unsigned period)
{
	struct perf_event_attr attr = page_faults(period);
	unsigned old = s->pagefault_period;
	int err;

	if (period == 0)
		return -EINVAL;
	if ((err = cpu_events_probe(s, &attr)) < 0)
		return err;
	if (!s->enabled || !s->pagefault_on) {
		s->pagefault_period = period;
		return 0;
	}
	sampler_pagefault_detach(s);
	(void)sampler_wait_quiescent(s);
	s->pagefault_period = period;
	if ((err = sampler_pagefault_attach(s)) < 0) {
		s->pagefault_period = old;
		(void)sampler_pagefault_attach(s);
	}
	return err;
}
