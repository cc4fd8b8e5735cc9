/*
 * control.c - stores into stackprof.control.*, root-only, then handed to
 * the control table, which validates, applies and keeps them.
 *
 * pmcd tells us each client's user id (PMDA_FLAG_AUTHORIZE); a store from a
 * context whose user id is not 0, or is unknown, is refused with
 * PM_ERR_PERMISSION.  A bad value is refused with PM_ERR_BADSTORE (or
 * PM_ERR_CONV), logged, counted, and changes nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "agent/controls.h"
#include "control.h"
#include "pcp_priv.h"
#include "lib/array.h"

static int
uid_of(const struct pcp_face *face, int ctx)
{
	return ctx >= 0 && ctx < face->ncontexts ? face->context_uid[ctx] : -1;
}

static void
set_uid(struct pcp_face *face, int ctx, int uid)
{
	if (ctx < 0)
		return;
	if (ctx >= face->ncontexts) {
		size_t	cap = (size_t)face->ncontexts;	/* every slot allocated is in use */

		if (array_reserve(&face->context_uid, &cap, (size_t)ctx + 1) < 0 || cap > INT_MAX) {
			pmNoMem("context uids", ((size_t)ctx + 1) * sizeof(int), PM_RECOV_ERR);
			return;	/* unknown uid: stores stay refused */
		}
		for (size_t i = (size_t)face->ncontexts; i < cap; i++)
			face->context_uid[i] = -1;	/* uid not known yet */
		face->ncontexts = (int)cap;
	}
	face->context_uid[ctx] = uid;
}

int
control_attribute(int ctx, int attr, const char *value, int length, pmdaExt *pmda)
{
	if (attr == PMDA_ATTR_USERID && value != NULL)
		set_uid(pmdaExtGetData(pmda), ctx, atoi(value));
	return pmdaAttribute(ctx, attr, value, length, pmda);
}

void
control_end_context(struct pcp_face *face, int ctx)
{
	if (ctx >= 0 && ctx < face->ncontexts)
		face->context_uid[ctx] = -1;
}

void
control_free(struct pcp_face *face)
{
	free(face->context_uid);
	face->context_uid = NULL;
	face->ncontexts = 0;
}

/* One metric of a store PDU: decode the value and hand it to the table. */
static int
store_one(struct pcp_face *face, pmValueSet *vsp, pmdaExt *pmda)
{
	const struct control	*c;
	pmDesc			*desc = NULL;
	pmAtomValue		atom;
	int			i, sts;

	for (i = 0; i < pmda->e_nmetrics; i++)
		if (pmda->e_metrics[i].m_desc.pmid == vsp->pmid)
			desc = &pmda->e_metrics[i].m_desc;
	if (desc == NULL)
		return PM_ERR_PMID;
	if (pmID_cluster(vsp->pmid) != CL_CONTROL ||
	    (c = control_by_item(pmID_item(vsp->pmid))) == NULL)
		return PM_ERR_PERMISSION;	/* read-only metric */
	if (vsp->numval != 1)
		return PM_ERR_BADSTORE;
	if ((sts = pmExtractValue(vsp->valfmt, &vsp->vlist[0], desc->type, &atom, desc->type)) < 0)
		return sts;
	if (desc->type == PM_TYPE_STRING) {
		sts = control_store_text(face->agent, c, atom.cp);
		free(atom.cp);
	} else {
		sts = control_store_u32(face->agent, c, atom.ul);
	}
	return sts;
}

/* The value a store asked for, as text for the log: a u32 as its number,
 * a string quoted and cut (a 4 KB regex would flood the log). */
static void
stored_text(const pmValueSet *vsp, char *buf, size_t len)
{
	const pmValue	*v = &vsp->vlist[0];
	int		n;

	if (vsp->numval != 1)
		pmsprintf(buf, len, "%d values", vsp->numval);
	else if (vsp->valfmt == PM_VAL_INSITU)
		pmsprintf(buf, len, "%u", (unsigned)v->value.lval);
	else if (v->value.pval->vtype == PM_TYPE_STRING) {
		n = (int)strnlen(v->value.pval->vbuf, v->value.pval->vlen > PM_VAL_HDR_SIZE ?
				 (size_t)(v->value.pval->vlen - PM_VAL_HDR_SIZE) : 0);
		pmsprintf(buf, len, "\"%.*s%s\"", n > 60 ? 60 : n, v->value.pval->vbuf,
			  n > 60 ? "..." : "");
	}
	else
		pmsprintf(buf, len, "a value of type %d", v->value.pval->vtype);
}

/*
 * pmcd hands pmstore only our error code, so the log says the rest: the
 * value asked for and the control's bounds.  Out of bounds is
 * PM_ERR_BADSTORE ("Bad input to pmstore", what pmstore prints): the one
 * code whose text says the value was refused (pmdastackprof.1, CONTROL).
 */
static void
log_refusal(pmValueSet *vsp, int sts, int uid)
{
	bool			readonly = uid == 0 && sts == PM_ERR_PERMISSION;
	const struct control	*c = NULL;
	char			name[64], value[80], bounds[64];

	if (pmID_cluster(vsp->pmid) == CL_CONTROL)
		c = control_by_item(pmID_item(vsp->pmid));
	if (c != NULL)
		pmsprintf(name, sizeof(name), "stackprof.control.%s", c->name);
	else
		pmsprintf(name, sizeof(name), "%s", pmIDStr(vsp->pmid));
	if (readonly)
		pmNotifyErr(LOG_WARNING, "store to %s refused: read-only", name);
	else if (sts == PM_ERR_PERMISSION)
		pmNotifyErr(LOG_WARNING, "store to %s refused: uid %d is not root", name, uid);
	else if (c != NULL) {
		stored_text(vsp, value, sizeof(value));
		pmNotifyErr(LOG_WARNING, "store to %s refused: %s: %s; it takes %s%s "
			    "(pmdastackprof --help lists each control's bounds)", name, value,
			    pmErrStr(sts), control_bounds(c, bounds, sizeof(bounds)),
			    c->units == CONTROL_UNITS_HZ ? " Hz" : c->units == CONTROL_UNITS_MSEC ?
			    " ms" : c->units == CONTROL_UNITS_USEC ? " us" :
			    c->units == CONTROL_UNITS_SEC ? " s" : "");
	} else
		pmNotifyErr(LOG_WARNING, "store to %s refused: %s", name, pmErrStr(sts));
}

int
control_store(pmResult *result, pmdaExt *pmda)
{
	struct pcp_face	*face = pmdaExtGetData(pmda);
	int		i, sts, uid = uid_of(face, pmda->e_context);

	for (i = 0; i < result->numpmid; i++) {
		pmValueSet	*vsp = result->vset[i];

		if (uid != 0) {
			control_count_refused(face->agent, true);
			log_refusal(vsp, PM_ERR_PERMISSION, uid);
			return PM_ERR_PERMISSION;
		}
		if ((sts = store_one(face, vsp, pmda)) < 0) {
			control_count_refused(face->agent, false);
			log_refusal(vsp, sts, uid);
			return sts;
		}
	}
	return 0;
}
