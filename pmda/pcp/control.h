/*
 * control.h - stores into stackprof.control.*: root-only, validated and
 * kept by the control table (agent/controls.h).  metrics.c registers these
 * with libpcp_pmda.
 */
#ifndef CONTROL_H
#define CONTROL_H

#include <pcp/pmapi.h>
#include <pcp/pmda.h>

struct pcp_face;

/* The store callback: the values of the PDU in order, up to the first refused. */
int control_store(pmResult *result, pmdaExt *pmda);
/* The attribute callback: remembers each context's user id. */
int control_attribute(int ctx, int attr, const char *value, int length, pmdaExt *pmda);
/* A client context went away: its user id is forgotten. */
void control_end_context(struct pcp_face *face, int ctx);
void control_free(struct pcp_face *face);

#endif /* CONTROL_H */
