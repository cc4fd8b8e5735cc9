/*
 * drain.c - turn the sampler's aggregated stacks into published data.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "agent_priv.h"
#include "drain.h"
#include "pipeline/events.h"
#include "pipeline/interval.h"
#include "lib/array.h"
#include "lib/clock.h"
#include "pipeline/lifetime.h"

#define FRAME_NAME_MAX	1024
#define WAKER_SEPARATOR	"--"	/* between the blocked and the waker, as offwaketime */

/* A stack copied out of the sampler, to be named after the maps are empty. */
struct raw_stack {
	enum profile_id		profile;
	struct sp_stack_key	key;
	uint64_t		count;
	int			nkernel, nuser;
	bool			woken;	/* off-wake: wake holds its waker */
	struct sp_wake_key	wake;
	int			nwaker_kernel, nwaker_user;
	uint64_t		ips[];	/* kernel ips, user ips, then the waker's */
};

struct drain_pass {
	struct agent	*agent;
	struct timeval	when;		/* timestamp of every record */
	struct raw_stack **raw;		/* phase 1 output */
	size_t		nraw, rawcap;
	char		*frames;	/* folded frame list being built */
	size_t		cap;
	uint64_t	symbolize_ns;
	struct interval_stacks **merged; /* this drain's stacks by name, per profile */
	struct profile	*publishing;	/* the profile interval_flush is at */
	struct lifetimes *lives;	/* the drain's, NULL for carried stacks */
	time_t		now;		/* CLOCK_MONOTONIC seconds */
};

struct drain {
	struct agent	*agent;
	void		(*service)(void *arg);	/* answers pmcd meanwhile */
	void		*service_arg;
	/* stacks handed over outside a drain (sampler_reconfigure), named next drain */
	struct drain_pass carried;
	struct interval_stacks *merged[NPROFILES]; /* reused: their buckets are big */
	/* the heat map as the last drain read it, for the history's deltas */
	uint64_t	heat_prev[SP_HEATMAP_MAX_SLOTS];
	uint64_t	heat_delta[SP_HEATMAP_MAX_SLOTS];
	unsigned	heat_prev_n;		/* 0: no baseline */
	struct lifetimes *lives;		/* which process of its PID a stack is */
};

void
drain_set_service(struct drain *d, void (*fn)(void *arg), void *arg)
{
	d->service = fn;
	d->service_arg = arg;
}

static void
reverse_bytes(char *p, size_t n)
{
	size_t	i;

	for (i = 0; i < n / 2; i++) {
		char	c = p[i];

		p[i] = p[n - 1 - i];
		p[n - 1 - i] = c;
	}
}

static int
append_frame(char **buf, size_t *cap, size_t *len, const char *name)
{
	size_t	n = strlen(name);

	if (array_reserve(buf, cap, *len + n + 2) < 0)
		return -ENOMEM;
	if (*len > 0)
		(*buf)[(*len)++] = ';';
	memcpy(*buf + *len, name, n + 1);
	*len += n;
	return 0;
}

/* Reverse the order of the ';'-separated frames of buf[0, len). */
static void
reverse_frames(char *buf, size_t len)
{
	size_t	i, start;

	reverse_bytes(buf, len);
	for (start = 0, i = 0; i <= len; i++)
		if (i == len || buf[i] == ';') {
			reverse_bytes(buf + start, i - start);
			start = i + 1;
		}
}

/* comm is not NUL-terminated when it fills the array */
static void
copy_comm(char *dst, const char *src)
{
	memcpy(dst, src, SP_COMM_LEN);
	dst[SP_COMM_LEN] = '\0';
	frame_name_sanitize(dst);
}

/*
 * The waker above the blocked frames, as offwaketime folds it: the
 * separator, the waker's kernel frames from the wake (try_to_wake_up)
 * out, its user frames innermost first, its thread name on top; so each
 * half reads from the separator outwards.  A user return address in no
 * mapping ends the user part ("[unknown]"), as for the blocked stack.
 */
static int
fold_waker(struct symbolizer *sym, const struct sampled_stack *st, char **buf, size_t *cap,
	   size_t *len)
{
	char	name[FRAME_NAME_MAX], comm[SP_COMM_LEN + 1];
	int	i, sts, cut = 0;

	if ((sts = append_frame(buf, cap, len, WAKER_SEPARATOR)) < 0)
		return sts;
	for (i = 0; i < st->nwaker_kernel; i++) {
		symbolize_kernel(sym, st->waker_kernel_ips[i], name, sizeof(name));
		if ((sts = append_frame(buf, cap, len, name)) < 0)
			return sts;
	}
	for (i = 0; i < st->nwaker_user && !cut; i++) {
		if (!symbolize_user(sym, (pid_t)st->wake->waker_tgid, st->waker_user_ips[i], name,
				    sizeof(name)) && i > 0) {
			snprintf(name, sizeof(name), "[unknown]");
			cut = 1;
		}
		if ((sts = append_frame(buf, cap, len, name)) < 0)
			return sts;
	}
	copy_comm(comm, st->wake->waker_comm);
	if ((sts = append_frame(buf, cap, len, comm)) < 0)
		return sts;
	return cut;
}

int
drain_fold_stack(struct symbolizer *sym, const struct sampled_stack *st,
		 char **buf, size_t *cap)
{
	char	name[FRAME_NAME_MAX];
	size_t	len = 0;
	int	i, sts, cut = 0;

	/*
	 * The kernel records innermost first; folded stacks start at the
	 * root, so the user frames are named innermost first and turned.
	 * A return address in no executable mapping is not one: a frame
	 * pointer walk read it where code keeps no frame pointer, and all
	 * beyond it is as wrong.  The stack is cut there, its root marked
	 * "[unknown]", so such samples share a few stacks instead of each
	 * having its own garbage.
	 */
	for (i = 0; i < st->nuser; i++) {
		if (!symbolize_user(sym, (pid_t)st->key->tgid, st->user_ips[i], name,
				    sizeof(name)) && i > 0) {
			snprintf(name, sizeof(name), "[unknown]");
			cut = 1;
		}
		if ((sts = append_frame(buf, cap, &len, name)) < 0)
			return sts;
		if (cut)
			break;
	}
	if (len > 0)
		reverse_frames(*buf, len);
	for (i = st->nkernel - 1; i >= 0; i--) {
		symbolize_kernel(sym, st->kernel_ips[i], name, sizeof(name));
		if ((sts = append_frame(buf, cap, &len, name)) < 0)
			return sts;
	}
	/* both stacks lost (counted by the sampler): keep the samples visible */
	if (len == 0 && (sts = append_frame(buf, cap, &len, "[unknown]")) < 0)
		return sts;
	if (st->wake && (sts = fold_waker(sym, st, buf, cap, &len)) != 0)
		return sts < 0 ? sts : 1;
	return cut;
}

/* Phase 1, inside sampler_drain: copy the stack, nothing slow. */
static void
copy_stack(void *arg, const struct sampled_stack *st)
{
	struct drain_pass	*pass = arg;
	struct raw_stack	*r;
	int			nk = st->nkernel > 0 ? st->nkernel : 0;
	int			nu = st->nuser > 0 ? st->nuser : 0;
	int			nwk = st->wake && st->nwaker_kernel > 0 ? st->nwaker_kernel : 0;
	int			nwu = st->wake && st->nwaker_user > 0 ? st->nwaker_user : 0;
	int			p;

	for (p = 0; p < NPROFILES && profile_defs[p].source != st->profile; p++)
		;
	if (p == NPROFILES)
		return;
	if (array_reserve(&pass->raw, &pass->rawcap, pass->nraw + 1) < 0)
		goto nomem;
	if ((r = malloc(sizeof(*r) + (size_t)(nk + nu + nwk + nwu) * sizeof(uint64_t))) == NULL)
		goto nomem;
	r->profile = (enum profile_id)p;
	r->key = *st->key;
	r->count = st->count;
	r->nkernel = nk;
	r->nuser = nu;
	/* a lost stack may come without its array */
	if (nk > 0)
		memcpy(r->ips, st->kernel_ips, (size_t)nk * sizeof(uint64_t));
	if (nu > 0)
		memcpy(r->ips + nk, st->user_ips, (size_t)nu * sizeof(uint64_t));
	r->woken = st->wake != NULL;
	if (r->woken)
		r->wake = *st->wake;
	r->nwaker_kernel = nwk;
	r->nwaker_user = nwu;
	if (nwk > 0)
		memcpy(r->ips + nk + nu, st->waker_kernel_ips, (size_t)nwk * sizeof(uint64_t));
	if (nwu > 0)
		memcpy(r->ips + nk + nu + nwk, st->waker_user_ips, (size_t)nwu * sizeof(uint64_t));
	pass->raw[pass->nraw++] = r;
	pass->agent->stats.stacks++;
	return;
nomem:
	pmNotifyErr(LOG_ERR, "drain: out of memory, %" PRIu64 " samples of pid %u dropped",
		    st->count, st->key->tgid);
}

/* sampler_reconfigure's hand-over: kept for the next drain */
static void
keep_stack(void *arg, const struct sampled_stack *st)
{
	struct drain	*d = arg;

	copy_stack(&d->carried, st);
}

struct drain *
drain_new(struct agent *a)
{
	struct drain	*d = calloc(1, sizeof(*d));
	int		p;

	if (d == NULL)
		return NULL;
	if ((d->lives = lifetimes_new()) == NULL) {
		free(d);
		return NULL;
	}
	for (p = 0; p < NPROFILES; p++)
		if ((d->merged[p] = interval_new()) == NULL) {
			while (p-- > 0)
				interval_free(d->merged[p]);
			lifetimes_free(d->lives);
			free(d);
			return NULL;
		}
	d->agent = a;
	d->carried.agent = a;
	agent_on_handover(a, keep_stack, d);
	return d;
}

void
drain_free(struct drain *d)
{
	size_t	i;
	int	p;

	if (d == NULL)
		return;
	agent_on_handover(d->agent, NULL, NULL);
	for (i = 0; i < d->carried.nraw; i++)
		free(d->carried.raw[i]);
	free(d->carried.raw);
	for (p = 0; p < NPROFILES; p++)
		interval_free(d->merged[p]);
	lifetimes_free(d->lives);
	free(d);
}

/* Phase 2: name the frames of one copied stack and merge it by name. */
static void
name_stack(struct drain_pass *pass, const struct raw_stack *r)
{
	struct sampled_stack	st = {
		.key = &r->key, .count = r->count,
		.kernel_ips = r->ips, .nkernel = r->nkernel,
		.user_ips = r->ips + r->nkernel, .nuser = r->nuser,
		.wake = r->woken ? &r->wake : NULL,
		.waker_kernel_ips = r->ips + r->nkernel + r->nuser, .nwaker_kernel = r->nwaker_kernel,
		.waker_user_ips = r->ips + r->nkernel + r->nuser + r->nwaker_kernel,
		.nwaker_user = r->nwaker_user,
	};
	char			comm[SP_COMM_LEN + 1], pcomm[SP_COMM_LEN + 1];
	uint64_t		t0;
	unsigned		gen;
	int			sts;

	copy_comm(comm, r->key.comm);
	copy_comm(pcomm, r->key.pcomm);
	t0 = clock_mono_ns();
	symbolizer_note_process(pass->agent->symbolizer, (pid_t)r->key.tgid);
	/* a sample from before the selection left the process out does not
	 * describe it again: its tables would hold rows it no longer uses */
	if (pass->agent->unwinder && proc_filter_selected(pass->agent->filter, (pid_t)r->key.tgid))
		unwinder_note_process(pass->agent->unwinder, (pid_t)r->key.tgid);
	if (r->woken && r->wake.waker_tgid != 0 && r->wake.waker_tgid != r->key.tgid) {
		symbolizer_note_process(pass->agent->symbolizer, (pid_t)r->wake.waker_tgid);
		if (pass->agent->unwinder)
			unwinder_note_process(pass->agent->unwinder, (pid_t)r->wake.waker_tgid);
	}
	sts = drain_fold_stack(pass->agent->symbolizer, &st, &pass->frames, &pass->cap);
	pass->symbolize_ns += clock_mono_ns() - t0;
	if (sts == 1) {
		pass->agent->stats.ustacks_cut++;
		sts = 0;
	}
	if (sts == 0)
		sts = lifetimes_gen(pass->lives, (pid_t)r->key.tgid, r->key.start, pass->now, &gen);
	if (sts == 0)
		sts = interval_add(pass->merged[r->profile], (pid_t)r->key.tgid, gen,
				   (pid_t)r->key.tid,
				   pcomm, comm, pass->frames, r->count);
	if (sts < 0)
		pmNotifyErr(LOG_ERR, "drain: out of memory for a stack of pid %u", r->key.tgid);
}

/*
 * Naming frames can take long (a large new binary's symbol table); pmcd
 * gives up on an agent that leaves a request unanswered for 5 s.  The maps
 * are already empty and nothing is half-published, so requests can be
 * answered between stacks.
 */
static void
name_stacks(struct drain *d, struct drain_pass *pass)
{
	uint64_t	last = clock_mono_ns();
	size_t		i;

	for (i = 0; i < pass->nraw; i++) {
		name_stack(pass, pass->raw[i]);
		free(pass->raw[i]);
		if (d->service && clock_mono_ns() - last > 50000000u) {
			d->service(d->service_arg);
			last = clock_mono_ns();
		}
	}
	free(pass->raw);
	pass->raw = NULL;
	pass->nraw = pass->rawcap = 0;
}

/* One merged stack: into the window, the event queue and the history. */
static void
publish_stack(void *arg, const struct interval_stack *st)
{
	struct drain_pass	*pass = arg;
	struct agent		*a = pass->agent;
	struct profile		*p = pass->publishing;
	struct stack_event	ev;

	window_add(p->window, st->pid, st->gen, st->process, st->thread, st->frames, st->count);
	ev.stack = st->frames;
	ev.count = st->count;
	ev.value_us = p->def->value(st->count, a->interval_frequency_hz);
	ev.pid = st->pid;
	ev.tid = st->tid;
	ev.comm = st->thread;
	ev.process = st->process;
	if (events_append(p->events, &ev, &pass->when) == 0)
		a->stats.records++;
	history_add(p->history, ev.pid, st->gen, ev.tid, ev.comm, ev.process, ev.stack,
		    ev.count, ev.value_us);
}

/*
 * The heat map's counts since the last drain, for the history: read when
 * the drain starts (the time its records carry), as the counters are read
 * at a fetch, so the client places them in seconds the same way.  A first
 * reading, a change of the slice count or a counter going back (both reset
 * the map) is only a baseline.  True when d->heat_delta holds a drain's.
 */
static bool
read_heat(struct drain *d)
{
	struct agent	*a = d->agent;
	unsigned	n = a->config.heatmap_slots, i;
	uint64_t	cur[SP_HEATMAP_MAX_SLOTS];
	bool		baseline = d->heat_prev_n != n;

	if (a->sampler == NULL || n == 0 || n > SP_HEATMAP_MAX_SLOTS ||
	    sampler_read_heatmap(a->sampler, cur, n) < 0) {
		d->heat_prev_n = 0;
		return false;
	}
	for (i = 0; i < n && !baseline; i++) {
		if (cur[i] < d->heat_prev[i])
			baseline = true;
		d->heat_delta[i] = cur[i] - d->heat_prev[i];
	}
	memcpy(d->heat_prev, cur, n * sizeof(*cur));
	d->heat_prev_n = n;
	return !baseline;
}

/*
 * Every profile's merged stacks into its window, queue and history.  The
 * history's hz is the on-CPU rate for sampled counts; other counts are
 * their own values (µs, faults), which hz 10^6 says (count * 10^6 / hz).
 * The heat map counts on-CPU samples: it goes with the on-CPU history.
 */
static void
publish(struct drain *d, struct drain_pass *pass, bool heat, time_t now)
{
	struct agent	*a = d->agent;
	int		i;

	for (i = 0; i < NPROFILES; i++) {
		struct profile	*p = &a->profiles[i];
		unsigned	hz = p->def->sampled ? a->interval_frequency_hz : 1000000u;

		pass->publishing = p;
		history_begin(p->history, &pass->when, hz, now);
		interval_flush(d->merged[i], publish_stack, pass);
		if (i == PROFILE_ONCPU && heat &&
		    history_heat(p->history, d->heat_delta, d->heat_prev_n) < 0)
			pmNotifyErr(LOG_ERR, "drain: out of memory for the history's heat map");
		history_end(p->history);
		window_publish(p->window, d->lives, now);
	}
	lifetimes_forget(d->lives, now);
}

/* What the drain measures about itself. */
static void
account(struct agent *a, uint64_t t0, uint64_t symbolize_ns)
{
	uint64_t	took_us = (clock_mono_ns() - t0) / 1000;

	a->stats.drains++;
	a->stats.symbolize_time_us += symbolize_ns / 1000;
	a->stats.drain_time_us += took_us;
	if (took_us > a->stats.drain_time_max_us)
		a->stats.drain_time_max_us = took_us;
	/* pmcd gives up on an agent silent for 5 s: say so before it does */
	if (took_us > 2000000)
		pmNotifyErr(LOG_WARNING, "drain took %.1f s", took_us / 1e6);
}

void
drain_run(struct drain *d)
{
	struct agent		*a = d->agent;
	struct drain_pass	pass = { .agent = a, .merged = d->merged, .lives = d->lives };
	bool			heat;
	uint64_t		t0 = clock_mono_ns();
	int			sts;

	gettimeofday(&pass.when, NULL);
	heat = read_heat(d);
	/* start with what a reconfiguration handed over since the last drain */
	pass.raw = d->carried.raw;
	pass.nraw = d->carried.nraw;
	pass.rawcap = d->carried.rawcap;
	d->carried.raw = NULL;
	d->carried.nraw = d->carried.rawcap = 0;
	if (a->sampler != NULL) {
		sts = sampler_drain(a->sampler, copy_stack, &pass);
		if (sts < 0) {
			a->stats.drain_errors++;
			pmNotifyErr(LOG_ERR, "sampler_drain: %s", strerror(-sts));
		}
	}
	pass.now = (time_t)(clock_mono_ns() / 1000000000u);
	name_stacks(d, &pass);
	free(pass.frames);
	publish(d, &pass, heat, pass.now);
	symbolizer_collect(a->symbolizer);
	if (a->unwinder)
		unwinder_collect(a->unwinder);
	/* regex matches are re-resolved so new processes join next interval */
	agent_refresh_filter(a);
	a->interval_frequency_hz = a->config.frequency_hz;
	account(a, t0, pass.symbolize_ns);
}
