/*
 * test_pmda - drain -> fetch -> store through the PMDA's own callbacks, as
 * pmcd calls them, with a real symbolizer and no BPF (the agent a host
 * without BPF gets): a stack the sampler hands over is named, drained and
 * then served as a folded string, a sample counter and an event record; a
 * store of each control through the store callback changes the agent, the
 * fetched value and the state file; a bad or unauthorized store changes
 * none of them; a context that ends loses its credentials.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "unit.h"
#include "agent/agent_priv.h"
#include "agent/controls.h"
#include "agent/drain.h"
#include "agent/stat_tables.h"
#include "lib/stat_table.h"
#include "pcp/metrics.h"

#define DOMAIN	170
#define CTX	3

static pmdaInterface	dp;
static struct agent	*agent;
static char		dir[] = "/tmp/test_pmda.XXXXXX";
static char		state[256], cache[256];

/* noinline, global: real functions with symbols in this executable */
static volatile int	sink;
__attribute__((noinline)) void pmda_outer(void) { for (int i = 0; i < 8; i++) sink += i * 3; }
__attribute__((noinline)) void pmda_inner(void) { for (int i = 0; i < 8; i++) sink += i * 5; }

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static pmdaExt *
ext(void)
{
	return dp.version.seven.ext;
}

/* libpcp_pmda's own main loop frees a fetch's values once it sent them */
extern void __pmFreeResultValues(pmResult *);
extern void __pmFreeInResult(pmInResult *);

/* Fetch one metric as client CTX; the value of instance inst (PM_IN_NULL
 * for singular metrics) in *atom, strings and event arrays copied.  The
 * fetch's status or 1 when the instance has a value. */
static int
fetch(unsigned cluster, unsigned item, int inst, int type, pmAtomValue *atom)
{
	pmID		pmid = pmID_build(DOMAIN, cluster, item);
	pmResult	*res = NULL;
	int		sts, i;

	__pmdaSetContext(CTX);
	ext()->e_context = CTX;
	if ((sts = dp.version.seven.fetch(1, &pmid, &res, ext())) < 0)
		return sts;
	for (i = 0, sts = 0; i < res->vset[0]->numval && sts == 0; i++) {
		pmValue	*v = &res->vset[0]->vlist[i];

		if (v->inst != inst)
			continue;
		if (type == PM_TYPE_EVENT) {
			atom->vbp = malloc(v->value.pval->vlen);
			memcpy(atom->vbp, v->value.pval, v->value.pval->vlen);
			sts = 1;
		} else if (pmExtractValue(res->vset[0]->valfmt, v, type, atom, type) == 0) {
			sts = 1;
		}
	}
	__pmFreeResultValues(res);
	return sts;
}

static int
store(int ctx, unsigned cluster, unsigned item, const char *text, unsigned u)
{
	pmResult	res = { .numpmid = 1 };
	pmValueSet	vs = { .pmid = pmID_build(DOMAIN, cluster, item), .numval = 1 };
	pmValueBlock	*vb = NULL;
	int		sts;

	vs.vlist[0].inst = PM_IN_NULL;
	if (text != NULL) {
		size_t	len = strlen(text) + 1;

		vb = calloc(1, PM_VAL_HDR_SIZE + len);
		vb->vlen = PM_VAL_HDR_SIZE + len;
		vb->vtype = PM_TYPE_STRING;
		memcpy(vb->vbuf, text, len);
		vs.valfmt = PM_VAL_DPTR;
		vs.vlist[0].value.pval = vb;
	} else {
		vs.valfmt = PM_VAL_INSITU;
		vs.vlist[0].value.lval = (int)u;
	}
	res.vset[0] = &vs;
	ext()->e_context = ctx;
	sts = dp.version.seven.store(&res, ext());
	free(vb);
	return sts;
}

static void
set_uid(int ctx, const char *uid)
{
	dp.version.seven.attribute(ctx, PMDA_ATTR_USERID, uid, (int)strlen(uid) + 1, ext());
}

/* stackprof.stats.NAME's cluster and item, from the stats tables */
static unsigned
stat_id(const char *name, unsigned *item)
{
	const struct stat_table	*t;
	size_t			i, r;

	for (i = 0; (t = agent_stat_table(i)) != NULL; i++)
		for (r = 0; r < t->nrows; r++)
			if (strcmp(t->rows[r].name, name) == 0) {
				*item = t->rows[r].item;
				return t->cluster;
			}
	fprintf(stderr, "no stat %s\n", name);
	exit(1);
}

static uint64_t
stat_u64(const char *name)
{
	pmAtomValue	a = { .ull = 0 };
	unsigned	item, cluster = stat_id(name, &item);

	CHECK_INT(fetch(cluster, item, PM_IN_NULL, PM_TYPE_U64, &a), 1);
	return a.ull;
}

/* A stack of ours, handed over the way sampler_reconfigure does. */
static void
hand_over_stack(uint64_t count)
{
	struct sp_stack_key	key = { .tgid = (uint32_t)getpid(), .tid = (uint32_t)gettid() };
	uint64_t		user[2] = { (uint64_t)(uintptr_t)pmda_inner + 4,
					    (uint64_t)(uintptr_t)pmda_outer + 4 };
	struct sampled_stack	st = { .key = &key, .count = count, .user_ips = user, .nuser = 2 };

	memcpy(key.comm, "worker", 7);
	memcpy(key.pcomm, "test_pmda", 10);
	agent->handover(agent->handover_arg, &st);
}

/* The records the client has not seen: how many, and the first's fields. */
static int
records(char *stack, size_t len, uint64_t *count, uint64_t *value, uint32_t *pid)
{
	pmAtomValue	atom;
	pmValueSet	vset = { .numval = 1, .valfmt = PM_VAL_DPTR };
	pmResult	**recs;
	int		n, i, j;

	if (fetch(1, 0, PM_IN_NULL, PM_TYPE_EVENT, &atom) != 1)
		return 0;
	vset.vlist[0].value.pval = atom.vbp;
	if ((n = pmUnpackEventRecords(&vset, 0, &recs)) < 0)
		return n;
	for (i = 0; i < n && i < 1; i++)
		for (j = 0; j < recs[i]->numpmid; j++) {
			pmValueSet	*v = recs[i]->vset[j];
			pmAtomValue	a;
			unsigned	item = pmID_item(v->pmid);
			int		type = item == 10 ? PM_TYPE_STRING :
					       item == 12 ? PM_TYPE_U32 : PM_TYPE_U64;

			if (item != 10 && item != 11 && item != 12 && item != 17)
				continue;
			pmExtractValue(v->valfmt, &v->vlist[0], type, &a, type);
			if (item == 10) {
				snprintf(stack, len, "%s", a.cp);
				free(a.cp);
			} else if (item == 11) {
				*count = a.ull;
			} else if (item == 12) {
				*pid = a.ul;
			} else {
				*value = a.ull;
			}
		}
	pmFreeEventResult(recs);
	free(atom.vbp);
	return n;
}

static void
test_drain_fetch(struct drain *d)
{
	pmInResult	*inres = NULL;
	pmAtomValue	a;
	char		stack[256] = "", want[256];
	uint64_t	count = 0, value = 0;
	uint32_t	pid = 0;

	CHECK_INT(records(stack, sizeof(stack), &count, &value, &pid), 0);	/* registers */
	CHECK_INT(fetch(1, 3, PM_IN_NULL, PM_TYPE_STRING, &a), 0);	/* the history too */
	hand_over_stack(7);
	drain_run(d);
	metrics_after_drain(&dp);

	/* the history: the thread, the frames, the stack, then its count */
	CHECK_INT(fetch(1, 3, PM_IN_NULL, PM_TYPE_STRING, &a), 1);
	snprintf(want, sizeof(want), "t 1 %d %d worker\ttest_pmda\nf 1 pmda_outer\n"
		 "f 2 pmda_inner\ns 1 1,2\n1 1:7", (int)getpid(), (int)gettid());
	CHECK(strchr(a.cp, '\n') != NULL && strcmp(strchr(a.cp, '\n') + 1, want) == 0);
	/* a client's first value is a keyframe (the default keyframe_s is on) */
	CHECK(strncmp(a.cp, "drains 1 ", 9) == 0 && strstr(a.cp, " hz 99 period 1800 key\n") != NULL);
	free(a.cp);
	CHECK_INT(fetch(1, 3, PM_IN_NULL, PM_TYPE_STRING, &a), 0);	/* seen */
	/* the flame view: one instance, bpftrace's form */
	snprintf(want, sizeof(want), "\n    pmda_inner\n    pmda_outer\n    [t] worker %d\n"
		 "    test_pmda %d\n", (int)gettid(), (int)getpid());
	CHECK_INT(fetch(1, 4, 1, PM_TYPE_U64, &a), 1);
	CHECK_INT(a.ull, 7);
	CHECK_INT(dp.version.seven.instance(pmInDom_build(DOMAIN, 2), 1, NULL, &inres, ext()), 0);
	CHECK(inres != NULL && inres->numinst == 1 && strcmp(inres->namelist[0], want) == 0);
	if (inres)
		__pmFreeInResult(inres);

	snprintf(want, sizeof(want), "test_pmda;[t] worker;pmda_outer;pmda_inner 7\n");
	CHECK_INT(fetch(1, 1, getpid(), PM_TYPE_STRING, &a), 1);
	CHECK_STR(a.cp, want);
	free(a.cp);
	CHECK_INT(fetch(1, 2, getpid(), PM_TYPE_U64, &a), 1);
	CHECK_INT(a.ull, 7);
	CHECK_INT(records(stack, sizeof(stack), &count, &value, &pid), 1);
	CHECK_STR(stack, "pmda_outer;pmda_inner");
	CHECK_INT(count, 7);
	CHECK_INT(pid, getpid());
	CHECK_INT(value, 7 * 1000000 / 99);
	CHECK_INT(stat_u64("drains"), 1);
	CHECK_INT(stat_u64("stacks"), 1);

	/* the next interval is empty: the folded text too, the counter stays */
	drain_run(d);
	metrics_after_drain(&dp);
	CHECK_INT(fetch(1, 1, getpid(), PM_TYPE_STRING, &a), 1);
	CHECK_STR(a.cp, "");
	free(a.cp);
	CHECK_INT(fetch(1, 2, getpid(), PM_TYPE_U64, &a), 1);
	CHECK_INT(a.ull, 7);
	CHECK_INT(records(stack, sizeof(stack), &count, &value, &pid), 0);
}

static char *
file_text(void)
{
	char	*text = NULL;
	size_t	len = 0;
	FILE	*f = fopen(state, "r");

	if (f) {
		getdelim(&text, &len, '\0', f);
		fclose(f);
	}
	return text;
}

/* Store through the callback; the agent, the fetched value, the file agree. */
static void
good_store(const char *name, const char *text, unsigned u, const char *line)
{
	const struct control	*c = control_by_name(name);
	pmAtomValue		a;
	char			*file;

	CHECK_INT(store(CTX, 0, c->item, c->type == CONTROL_STRING ? text : NULL, u), 0);
	if (c->type == CONTROL_STRING) {
		CHECK_STR(control_text(agent, c), text);
		CHECK_INT(fetch(0, c->item, PM_IN_NULL, PM_TYPE_STRING, &a), 1);
		CHECK_STR(a.cp, text);
		free(a.cp);
	} else {
		CHECK_INT(control_u32(agent, c), u);
		CHECK_INT(fetch(0, c->item, PM_IN_NULL, PM_TYPE_U32, &a), 1);
		CHECK_INT(a.ul, u);
	}
	file = file_text();
	CHECK(file != NULL && strstr(file, line) != NULL);
	free(file);
}

/* Refused: the status, and nothing moved (agent, file). */
static void
refused(int ctx, unsigned cluster, unsigned item, const char *text, unsigned u, int want)
{
	struct agent_config	before = agent->config;
	char			*f0 = file_text(), *f1, *p0 = strdup(agent->config.process_regex);
	char			*i0 = strdup(agent->config.pids_text);
	char			*u0 = strdup(agent->config.debuginfod_urls);
	int			sts;

	sts = store(ctx, cluster, item, text, u);
	CHECK_INT(sts, want);
	CHECK_INT(agent->config.frequency_hz, before.frequency_hz);
	CHECK_INT(agent->config.interval_ms, before.interval_ms);
	CHECK_INT(agent->config.enabled, before.enabled);
	CHECK_INT(agent->config.heatmap_slots, before.heatmap_slots);
	CHECK_STR(agent->config.process_regex, p0);
	CHECK_STR(agent->config.pids_text, i0);
	CHECK_STR(agent->config.debuginfod_urls, u0);
	f1 = file_text();
	CHECK(f0 && f1 && strcmp(f0, f1) == 0);
	free(f0);
	free(f1);
	free(p0);
	free(i0);
	free(u0);
}

static int
slot_instances(void)
{
	pmInResult	*in = NULL;
	int		n;

	if (dp.version.seven.instance(pmInDom_build(DOMAIN, 1), PM_IN_NULL, NULL, &in, ext()) < 0)
		return -1;
	n = in->numinst;
	for (int i = 0; in->namelist && i < n; i++)
		free(in->namelist[i]);
	free(in->namelist);
	free(in->instlist);
	free(in);
	return n;
}

static void
test_stores(void)
{
	struct stat	st;
	unsigned	cluster, item;

	set_uid(CTX, "0");
	good_store("frequency", NULL, 49, "\nfrequency=49\n");
	good_store("interval", NULL, 500, "\ninterval=500\n");
	good_store("enabled", NULL, 0, "\nenabled=0\n");
	good_store("heatmap_slots", NULL, 10, "\nheatmap_slots=10\n");
	CHECK_INT(slot_instances(), 10);
	good_store("process", "^(nginx|java)$", 0, "\nprocess=^(nginx|java)$\n");
	good_store("pids", "12, 34", 0, "\npids=12, 34\n");
	/* nothing asks yet (every frame here is named): no request */
	good_store("debuginfod", "http://127.0.0.1:9", 0, "\ndebuginfod=http://127.0.0.1:9\n");
	CHECK(stat(state, &st) == 0 && (st.st_mode & 07777) == 0600);

	refused(CTX, 0, 1, NULL, 0, PM_ERR_BADSTORE);		/* frequency 0 */
	refused(CTX, 0, 1, NULL, 1001, PM_ERR_BADSTORE);
	refused(CTX, 0, 4, NULL, 99, PM_ERR_BADSTORE);		/* interval */
	refused(CTX, 0, 0, NULL, 2, PM_ERR_BADSTORE);		/* enabled */
	refused(CTX, 0, 5, NULL, 7, PM_ERR_BADSTORE);		/* heatmap_slots */
	refused(CTX, 0, 2, "(", 0, PM_ERR_BADSTORE);		/* process */
	refused(CTX, 0, 3, "1,,2", 0, PM_ERR_BADSTORE);		/* pids */
	refused(CTX, 0, 7, "file:///etc", 0, PM_ERR_BADSTORE);	/* debuginfod */
	cluster = stat_id("bpf_loaded", &item);
	refused(CTX, cluster, item, NULL, 5, PM_ERR_PERMISSION);	/* read-only */
	cluster = stat_id("debuginfod_requests", &item);
	refused(CTX, cluster, item, NULL, 5, PM_ERR_PERMISSION);
	refused(CTX, 0, 99, NULL, 5, PM_ERR_PMID);		/* no such metric */
	CHECK_INT(stat_u64("bad_stores"), 11);
	CHECK_INT(stat_u64("debuginfod_requests"), 0);
	CHECK_INT(stat_u64("debuginfod_hits"), 0);
	CHECK_INT(stat_u64("debuginfod_misses"), 0);
	CHECK_INT(stat_u64("debuginfod_failures"), 0);
	CHECK_INT(stat_u64("debuginfod_rejected"), 0);
	CHECK_INT(stat_u64("debuginfod_bytes"), 0);
	CHECK_INT(stat_u64("debuginfod_cache_bytes"), 0);
	CHECK_INT(stat_u64("debuginfod_slowest"), 0);
	CHECK_INT(stat_u64("debuginfod_named_files"), 0);
	good_store("debuginfod", "", 0, "\ndebuginfod=\n");
	CHECK_INT(slot_instances(), 10);

	set_uid(CTX + 1, "1000");
	refused(CTX + 1, 0, 1, NULL, 199, PM_ERR_PERMISSION);
	refused(CTX + 2, 0, 1, NULL, 199, PM_ERR_PERMISSION);	/* never told */
	CHECK_INT(stat_u64("denied_stores"), 2);

	/* the context ends: its credentials go with it */
	ext()->e_endCallBack(CTX);
	refused(CTX, 0, 1, NULL, 199, PM_ERR_PERMISSION);
}

/* An agent whose debuginfod could not be set up says so to a store that
 * needs it, and takes "" (off) as always. */
static void
test_debuginfod_unavailable(void)
{
	struct agent		*b = agent_new();
	const struct control	*c = control_by_name("debuginfod");

	CHECK(b != NULL && controls_reset(b) == 0);
	b->debuginfod_cache = NULL;
	CHECK_INT(agent_start(b, false), 0);
	agent_start_threads(b);
	CHECK_INT(b->debuginfod_error, -ENOTSUP);
	CHECK_INT(control_store_text(b, c, "http://127.0.0.1:9"), -ENOTSUP);
	CHECK_STR(b->config.debuginfod_urls, "");
	CHECK_INT(control_store_text(b, c, ""), 0);
	agent_free(b);
}

int
main(void)
{
	struct drain	*d;

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(state, sizeof(state), "%s/stackprof.state", dir);
	pmSetProgname("test_pmda");
	pmdaDaemon(&dp, PMDA_INTERFACE_7, "test_pmda", DOMAIN, "test_pmda.log", NULL);
	agent = agent_new();
	CHECK(agent != NULL);
	if (agent == NULL || controls_reset(agent) < 0)
		return 1;
	controls_load(agent, state);
	d = drain_new(agent);
	CHECK(d != NULL);
	CHECK_INT(metrics_init(&dp, agent), 0);
	snprintf(cache, sizeof(cache), "%s/debuginfod-cache", dir);
	agent->debuginfod_cache = cache;
	CHECK_INT(agent_start(agent, false), 0);
	agent_start_threads(agent);
	CHECK_INT(agent->debuginfod_error, 0);

	test_drain_fetch(d);
	test_stores();
	test_debuginfod_unavailable();

	drain_free(d);
	metrics_free(&dp);
	agent_free(agent);
	unlink(state);
	nftw(cache, remove_one, 8, FTW_DEPTH | FTW_PHYS);
	rmdir(dir);
	return unit_report("test_pmda");
}
