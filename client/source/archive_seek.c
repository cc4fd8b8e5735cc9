/*
 * archive_seek.c - the keyframe before a range (archive_seek.h).
 *
 * A PMDA that writes keyframes marks its clients' first values too, so
 * the archive's first history value tells whether there are any: an old
 * archive costs a few forward fetches, then is read from its start as
 * before.  Otherwise pmFetch in PM_MODE_BACK walks the results back from
 * t, one per logging interval, up to the keyframe before it (at most the
 * keyframe period's worth); a PMDA restarted in between numbered anew and
 * marked its first value, which is then the keyframe found.
 */
#include <math.h>
#include "archive_seek.h"
#include "history.h"

/* Results read forward for the first history value: pmlogger's first
 * fetch of it is empty, so it is in the second result or soon after. */
#define FIRST_VALUE_TRIES	64

/* The history value of rp, if it has one: 0 none, 1 keyframe, 2 other. */
static int
value_kind(const pmResult *rp)
{
	const pmValueSet	*vs;
	const pmValueBlock	*vb;

	if (rp->numpmid < 1 || (vs = rp->vset[0])->numval < 1 || vs->valfmt == PM_VAL_INSITU)
		return 0;
	vb = vs->vlist[0].value.pval;
	if (vb == NULL || vb->vlen <= PM_VAL_HDR_SIZE)
		return 0;
	return history_is_keyframe(vb->vbuf, vb->vlen - PM_VAL_HDR_SIZE) ? 1 : 2;
}

/* Whether the archive's first history value is a keyframe: 1, 0, or a
 * PCP error. */
static int
has_keyframes(pmID history, const struct timeval *first)
{
	pmResult	*rp;
	int		i, kind, sts;

	if ((sts = pmSetMode(PM_MODE_FORW, first, 0)) < 0)
		return sts;
	for (i = 0; i < FIRST_VALUE_TRIES; i++) {
		if ((sts = pmFetch(1, &history, &rp)) < 0)
			return sts == PM_ERR_EOL ? 0 : sts;
		kind = value_kind(rp);
		pmFreeResult(rp);
		if (kind != 0)
			return kind == 1;
	}
	return 0;
}

int
archive_keyframe(pmID history, const struct timeval *first, double t, struct timeval *at,
		 unsigned *back)
{
	struct timeval	tv = { (time_t)floor(t), 0 };
	pmResult	*rp;
	int		kind, sts;

	*back = 0;
	if ((sts = has_keyframes(history, first)) <= 0)
		return sts < 0 ? sts : 1;
	tv.tv_usec = (suseconds_t)((t - floor(t)) * 1e6);	/* down: at or before t */
	if ((sts = pmSetMode(PM_MODE_BACK, &tv, 0)) < 0)
		return sts;
	for (;;) {
		if ((sts = pmFetch(1, &history, &rp)) < 0)
			return sts == PM_ERR_EOL ? 1 : sts;
		(*back)++;
		/* a result after t (if libpcp starts there) cannot serve */
		kind = rp->timestamp.tv_sec + rp->timestamp.tv_usec / 1e6 <= t ? value_kind(rp) : 0;
		*at = rp->timestamp;
		pmFreeResult(rp);
		if (kind == 1)
			return 0;
	}
}
