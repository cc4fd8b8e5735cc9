/*
 * fuzz_records.c - stackprof.oncpu.stacks event records as pmflame decodes
 * them (client/source/records.c), live or from an archive.
 *
 * The input is the value block pmcd sends (the seeds are real ones, from
 * the PMDA): a pmValueBlock header, then the packed event array.  The
 * header's type byte picks the flavour (PM_TYPE_HIGHRES_EVENT, else
 * PM_TYPE_EVENT); its length is set to the input's, as libpcp would only
 * hand over a block of the length it read.  Whatever the 24 length bits
 * held besides the real length picks the parameter types the "archive's
 * metadata" claims (3 bits each, 0 = the PMDA's own types): a damaged
 * archive can say anything about them.
 */
#include <math.h>
#include "fuzz.h"
#include "source/records.h"

static const int pmda_types[RP_NPARAMS] = {
	PM_TYPE_STRING, PM_TYPE_U64, PM_TYPE_U32, PM_TYPE_U32,
	PM_TYPE_STRING, PM_TYPE_STRING, PM_TYPE_STRING, PM_TYPE_U64,
};
static const int other_types[8] = {
	0, PM_TYPE_STRING, PM_TYPE_U32, PM_TYPE_64, PM_TYPE_FLOAT,
	PM_TYPE_DOUBLE, PM_TYPE_AGGREGATE, PM_TYPE_UNKNOWN,
};

static volatile size_t seen;

static int
take(void *arg, const struct stack_sample *s)
{
	(void)arg;
	if (s->stack == NULL || s->process == NULL || s->host == NULL)
		abort();
	/* every string the selection reads of a sample */
	seen += strlen(s->stack) + strlen(s->process) + (s->thread ? strlen(s->thread) : 0) +
		(s->event ? strlen(s->event) : 0);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record_ids	ids = { .stacks = pmID_build(170, 1, 0) };
	struct record_counts	c = { .first = INFINITY, .last = -INFINITY };
	pmValueSet		vs = { .pmid = ids.stacks, .numval = 1, .valfmt = PM_VAL_DPTR };
	pmValueBlock		*vb;
	uint32_t		knob;

	if (size < sizeof(*vb) || size > 0xffffff)
		return 0;
	vb = malloc(size);
	if (vb == NULL)
		exit(2);
	memcpy(vb, data, size);
	vb->vtype = vb->vtype == PM_TYPE_HIGHRES_EVENT ? PM_TYPE_HIGHRES_EVENT : PM_TYPE_EVENT;
	knob = vb->vlen ^ (uint32_t)size;
	vb->vlen = (unsigned)size;
	ids.stacks_type = vb->vtype;
	for (int k = 0; k < RP_NPARAMS; k++) {
		int t = other_types[(knob >> (3 * k)) & 7];

		ids.param[k] = pmID_build(170, 1, 10 + k);
		ids.type[k] = t ? t : pmda_types[k];
	}
	vs.vlist[0].inst = PM_IN_NULL;
	vs.vlist[0].value.pval = vb;
	records_deliver(&vs, &ids, "host", -INFINITY, INFINITY, take, NULL, &c);
	records_deliver(&vs, &ids, "host", 1e9, 2e9, take, NULL, &c);
	free(vb);
	return 0;
}
