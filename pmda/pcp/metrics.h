/*
 * metrics.h - pmdastackprof's face to pmcd: metric tables, fetch, stores.
 * The whole contract of pmda/pcp/ for main.c.
 */
#ifndef METRICS_H
#define METRICS_H

#include <pcp/pmapi.h>
#include <pcp/pmda.h>

struct agent;

/*
 * Register the metric tables (the controls' from the control table) and
 * every callback with pmdaInit; the callbacks reach agent a through dp's
 * private data (pmdaExtSetData).  0 or -ENOMEM.
 */
int metrics_init(pmdaInterface *dp, struct agent *a);
/* A drain published a new interval: the process instances changed. */
void metrics_after_drain(pmdaInterface *dp);
void metrics_free(pmdaInterface *dp);

#endif /* METRICS_H */
