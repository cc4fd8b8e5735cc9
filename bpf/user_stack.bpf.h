/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user_stack.bpf.h - take a user stack and store it: included once by
 * stackprof.bpf.c, written so that any program (the on-CPU sampler, the
 * page-fault sampler) calls
 *
 *   __u64 take_user_stack(ctx, sample_regs, task, tgid, generation)
 *
 * and gets the key of the stack in that generation's user stack map (or
 * SP_USTACK_NONE / SP_USTACK_LOST).  sample_regs are the registers a perf
 * sample interrupted, or NULL in a tracepoint: the walk then starts from
 * the registers the task saved on entering the kernel.  A program that
 * must keep a stack before storing it (off-CPU: taken at switch-out,
 * stored at switch-in) calls walk_user_stack() into its own struct walk
 * and store_stack() later.
 *
 * Walker (unwind_mode SP_UNWIND_AUTO, process known to user space): from
 * the user registers, up to SP_MAX_STACK_DEPTH frames in a bpf_loop; per
 * frame the mapping of pc (binary search in the process's sorted mapping
 * array), the row of pc in that mapping's table (binary search), then the
 * row's rule: CFA from RSP or RBP, return address at CFA - 8, RBP restored
 * from CFA + offset or kept, RSP = CFA.  Frames after the first look up
 * pc - 1, since a return address points after its call (the first frame
 * and the frame a signal interrupted are exact).  A frame with no table
 * or no row steps by its frame pointer; a return address in no mapping
 * ends the walk (an exact pc in none steps by its frame pointer).  Otherwise (fp mode, or a
 * process user space has not described yet) the kernel's frame-pointer
 * walk, bpf_get_stack(), fills the same array, so there is one store.
 *
 * Store: a hash map per generation keyed by a 64-bit hash of the pcs; the
 * stored pcs are compared in full, a different stack under the same key
 * retries at a second key, then counts SP_STAT_USTACK_COLLISION and gives
 * SP_USTACK_LOST.  Layout of the maps and rows: bpf/stackprof.h;
 * design: "Unwinding" in docs/design.md.
 *
 * The includer provides: stat_inc(), READ_ONCE(), the execs ring buffer,
 * EEXIST, PF_KTHREAD and NSEC_PER_SEC.
 */
#ifndef USER_STACK_BPF_H
#define USER_STACK_BPF_H

#define REFRESH_GAP_NS	(NSEC_PER_SEC / 4)	/* per process, between refresh requests */

/* x86-64 rt_sigframe: at __restore_rt RSP points at its ucontext, whose
 * sigcontext (at 40) holds rbp, rsp, rip at these offsets from RSP. */
#define SIGCTX_RBP	120
#define SIGCTX_RSP	160
#define SIGCTX_RIP	168

/* Set by user space. */
__u32 unwind_mode;			/* enum sp_unwind_mode */
/* Fixed at load: tests narrow it to force hash collisions. */
const volatile __u64 ustack_hash_mask = ~0ULL;

#define USTACK_MAP(name) struct { \
	__uint(type, BPF_MAP_TYPE_HASH); \
	__uint(max_entries, 1024);		/* resized at load */ \
	__type(key, __u64); \
	__type(value, struct sp_user_stack); \
} name SEC(".maps")

USTACK_MAP(ustacks0);
USTACK_MAP(ustacks1);

/* Rows of every table, in blocks (user space allocates ranges). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* resized at load */
	__type(key, __u32);
	__type(value, struct sp_unwind_block);
} unwind_rows SEC(".maps");

/* Table id -> its range of rows. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* resized at load */
	__type(key, __u32);
	__type(value, struct sp_unwind_table);
} unwind_tables SEC(".maps");

/* tgid -> executable mappings; allocated per process (4 KiB each). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);			/* resized at load */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct sp_unwind_proc);
} unwind_procs SEC(".maps");

#define PY_FRAME_READ	SP_PY_FRAME_READ
#define PY_WINDOW	2048		/* bytes of a thread's frames read at once */

/* The sample's walk in progress on this CPU (too large for the BPF
 * stack).  Only perf_event programs use it: the kernel runs no
 * perf_event program inside another (bpf_prog_active), but does run one
 * inside a tracepoint's, so those walk into storage of their own. */
struct walk {
	__u64	pc, sp, bp;
	__u64	hash;
	__u32	exact;			/* pc is not a return address */
	__u32	asked;			/* refresh asked during this walk */
	__u32	tgid;
	__u32	py_state;		/* enum py_state (python.bpf.h) */
	__u64	fsbase;			/* the thread's TLS base */
	__u64	py_frame;		/* the next Python frame to record */
	__u32	py_emitting;		/* recording an eval-loop frame's Python frames */
	__u32	py_emitted;		/* how many it got so far */
	__u32	py_loops, py_frames;	/* this walk's, counted at its end */
	__u64	py_win_lo, py_win_hi;	/* py_win holds [lo, hi) of the process */
	__u8	py_win[PY_WINDOW];
	struct sp_user_stack stack;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk);
} walks SEC(".maps");

struct walk_ctx {
	struct walk		*w;
	struct sp_unwind_proc	*proc;
	struct sp_python_proc	*py;	/* NULL: not CPython, or interpreters off */
};

static __always_inline __u64
hash_step(__u64 h, __u64 pc)
{
	h = (h ^ pc) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/* mask: the bits a key keeps (an off-CPU kernel stack's key must be a
 * non-negative __s32, see bpf/stackprof.h). */
static __always_inline __u64
hash_final(__u64 h, __u32 n, __u64 mask)
{
	h ^= n;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h &= ustack_hash_mask & mask;
	return h < SP_USTACK_RESERVED ? h + SP_USTACK_RESERVED : h;
}

#include "python.bpf.h"

/*
 * Binary searches run as bpf_loop callbacks: the verifier checks a callback
 * once, where a bounded loop is checked once per iteration and path (two
 * nested searches in the frame loop exceed its budget).
 */
struct mapping_search {
	const struct sp_unwind_proc *proc;
	__u64	pc;
	__u32	lo, hi;
	__s32	found;			/* index, or -1 */
};

static long
mapping_probe(__u32 i, struct mapping_search *q)
{
	const struct sp_unwind_mapping *m;
	__u32 mid;

	(void)i;
	if (q->lo >= q->hi)
		return 1;
	mid = q->lo + (q->hi - q->lo) / 2;
	if (mid >= SP_UNWIND_MAX_MAPPINGS)
		return 1;
	m = &q->proc->mapping[mid];
	if (q->pc < m->start) {
		q->hi = mid;
	} else if (q->pc - m->start >= m->len) {
		q->lo = mid + 1;
	} else {
		q->found = mid;
		return 1;
	}
	return 0;
}

/* The mapping holding pc, or NULL. */
static __always_inline const struct sp_unwind_mapping *
find_mapping(const struct sp_unwind_proc *p, __u64 pc)
{
	struct mapping_search q = { .proc = p, .pc = pc, .hi = p->nmappings, .found = -1 };
	__u32 i;

	bpf_loop(9, mapping_probe, &q, 0);	/* 2^8 > SP_UNWIND_MAX_MAPPINGS */
	i = (__u32)q.found;
	if (i >= SP_UNWIND_MAX_MAPPINGS || i >= p->nmappings)
		return NULL;
	return &p->mapping[i];
}

static __always_inline const struct sp_unwind_row *
row_at(__u32 i)
{
	__u32 block = i / SP_UNWIND_BLOCK_ROWS;
	struct sp_unwind_block *b = bpf_map_lookup_elem(&unwind_rows, &block);

	return b ? &b->row[i % SP_UNWIND_BLOCK_ROWS] : NULL;
}

struct row_search {
	__u32	first;			/* the table's first row */
	__u32	rel;			/* pc relative to the table's base */
	__u32	lo, hi;			/* rows [0, lo) start at or before rel */
};

static long
row_probe(__u32 i, struct row_search *q)
{
	const struct sp_unwind_row *r;
	__u32 mid;

	(void)i;
	if (q->lo >= q->hi)
		return 1;
	mid = q->lo + (q->hi - q->lo) / 2;
	r = row_at(q->first + mid);
	if (!r) {
		q->lo = 0;
		return 1;
	}
	if (r->pc <= q->rel)
		q->lo = mid + 1;
	else
		q->hi = mid;
	return 0;
}

/* The last row of table id starting at or before vaddr, or NULL.  Tables
 * have at most SP_UNWIND_MAX_TABLE_ROWS = 2^24 rows (25 probes). */
static __always_inline const struct sp_unwind_row *
find_row(__u32 id, __u64 vaddr)
{
	const struct sp_unwind_table *t = bpf_map_lookup_elem(&unwind_tables, &id);
	struct row_search q = { 0 };

	if (!t || vaddr < t->base || vaddr - t->base > 0xffffffffULL)
		return NULL;
	q.first = t->first;
	q.rel = vaddr - t->base;
	q.hi = t->nrows;
	bpf_loop(25, row_probe, &q, 0);
	if (q.lo == 0 || q.lo < q.hi)	/* before the first row, or search cut short */
		return NULL;
	return row_at(q.first + q.lo - 1);
}

static __always_inline long
stop(struct walk *w, __u32 end)
{
	w->stack.end = end;
	return 1;
}

/* Step to the caller through w->bp, the frame pointer. */
static __always_inline long
fp_step(struct walk *w)
{
	__u64 frame[2];			/* saved rbp, return address */

	if (w->bp == 0)
		return stop(w, SP_END_FP);
	if (w->bp < w->sp || (w->bp & 7))
		return stop(w, SP_END_NORULE);
	if (bpf_probe_read_user(frame, sizeof(frame), (void *)w->bp))
		return stop(w, SP_END_READ);
	stat_inc(SP_STAT_UNWIND_FP_FRAMES);
	w->sp = w->bp + 16;
	w->bp = frame[0];
	w->pc = frame[1];
	w->exact = 0;
	return w->pc ? 0 : stop(w, SP_END_COMPLETE);
}

/* Leave a signal handler: the interrupted registers are in the frame. */
static __always_inline long
signal_step(struct walk *w)
{
	__u64 regs[(SIGCTX_RIP - SIGCTX_RBP) / 8 + 1];

	if (bpf_probe_read_user(regs, sizeof(regs), (void *)(w->sp + SIGCTX_RBP)))
		return stop(w, SP_END_READ);
	stat_inc(SP_STAT_UNWIND_TABLE_FRAMES);
	w->bp = regs[0];
	w->sp = regs[(SIGCTX_RSP - SIGCTX_RBP) / 8];
	w->pc = regs[(SIGCTX_RIP - SIGCTX_RBP) / 8];
	w->exact = 1;			/* the interrupted instruction itself */
	return w->pc ? 0 : stop(w, SP_END_COMPLETE);
}

/* DRAP (GCC's stack realignment): the CFA is stored below RBP, and the
 * caller's RBP at an RBP-relative slot (offset 0 included). */
static __always_inline long
rbp_deref_step(struct walk *w, const struct sp_unwind_row *r)
{
	__u64 cfa, ra, bp;

	if (bpf_probe_read_user(&cfa, sizeof(cfa), (void *)(w->bp + r->cfa_offset)) ||
	    bpf_probe_read_user(&bp, sizeof(bp), (void *)(w->bp + r->rbp_offset)))
		return stop(w, SP_END_READ);
	if (cfa <= w->sp)
		return stop(w, SP_END_NORULE);
	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)))
		return stop(w, SP_END_READ);
	stat_inc(SP_STAT_UNWIND_TABLE_FRAMES);
	w->sp = cfa;
	w->bp = bp;
	w->pc = ra;
	w->exact = 0;
	return ra ? 0 : stop(w, SP_END_COMPLETE);
}

static __always_inline long
row_step(struct walk *w, const struct sp_unwind_row *r)
{
	__u64 cfa, ra, bp = w->bp;

	switch (r->cfa_type) {
	case SP_CFA_RSP:
		cfa = w->sp + r->cfa_offset;
		break;
	case SP_CFA_RBP:
		cfa = w->bp + r->cfa_offset;
		break;
	case SP_CFA_PLT:
		cfa = w->sp + 8 + ((w->pc & 15) >= 11 ? 8 : 0);
		break;
	case SP_CFA_SIGNAL:
		return signal_step(w);
	case SP_CFA_END:
		return stop(w, SP_END_COMPLETE);
	case SP_CFA_RBP_DEREF:
		return rbp_deref_step(w, r);
	default:
		return fp_step(w);
	}
	if (cfa <= w->sp)		/* callers live above: not a frame */
		return stop(w, SP_END_NORULE);
	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)))
		return stop(w, SP_END_READ);
	if (r->rbp_offset && bpf_probe_read_user(&bp, sizeof(bp), (void *)(cfa + r->rbp_offset)))
		return stop(w, SP_END_READ);
	stat_inc(SP_STAT_UNWIND_TABLE_FRAMES);
	w->sp = cfa;
	w->bp = bp;
	w->pc = ra;
	w->exact = 0;
	return ra ? 0 : stop(w, SP_END_COMPLETE);
}

/* A pc in none of the mappings user space gave (a library loaded since, or
 * JIT code: SP_EVENT_MAPS), or in one whose table user space may yet give
 * (SP_EVENT_RETRY).  Ask at most every REFRESH_GAP_NS per process. */
static __always_inline void
ask_refresh(struct walk *w, struct sp_unwind_proc *proc, __u32 kind)
{
	__u64 now = bpf_ktime_get_ns();
	struct sp_exec_event *e;

	if (w->asked || now - proc->refresh_ns < REFRESH_GAP_NS)
		return;
	w->asked = 1;
	proc->refresh_ns = now;
	e = bpf_ringbuf_reserve(&execs, sizeof(*e), 0);
	if (!e) {
		stat_inc(SP_STAT_EXEC_LOST);
		return;
	}
	e->tgid = w->tgid;
	e->kind = kind;
	bpf_ringbuf_submit(e, 0);
	stat_inc(SP_STAT_UNWIND_REFRESH);
}

/* Record w->pc as the next frame; false when the stack is full. */
static __always_inline bool
record_pc(struct walk *w)
{
	__u32 n = w->stack.nframes;

	if (n >= SP_MAX_STACK_DEPTH)
		return false;
	w->stack.pcs[n] = w->pc;
	w->stack.nframes = n + 1;
	w->hash = hash_step(w->hash, w->pc);
	return true;
}

/*
 * One frame: record pc, then step to the caller.  bpf_loop callback.  A
 * frame in CPython's eval loop takes as many calls as it has Python
 * frames (each records one, without stepping), then the call that steps
 * past it; it is recorded itself only when it got no Python frame.
 */
static long
walk_frame(__u32 i, struct walk_ctx *c)
{
	struct walk *w = c->w;
	const struct sp_unwind_mapping *m;
	const struct sp_unwind_row *r;
	struct sp_python_proc *py = c->py;
	__u64 pc;

	(void)i;
	if (w->py_emitting && py) {
		if (python_frame(w, py))
			return 0;
		w->py_emitting = 0;
		if (w->py_emitted == 0 && !record_pc(w))
			return stop(w, SP_END_DEPTH);
		if (w->stack.nframes >= SP_MAX_STACK_DEPTH)
			return stop(w, SP_END_DEPTH);
	} else if (py && py_in_eval(py, w->pc) && python_enter(w, py)) {
		w->py_emitting = 1;
		return 0;
	} else if (!record_pc(w)) {
		return stop(w, SP_END_DEPTH);
	}
	pc = w->exact ? w->pc : w->pc - 1;
	m = find_mapping(c->proc, pc);
	if (!m) {
		stat_inc(SP_STAT_UNWIND_NO_MAPPING);
		ask_refresh(w, c->proc, SP_EVENT_MAPS);
		/* a return address outside every mapping is what a frame
		 * pointer walk reads where code keeps none: stepping on
		 * from it only adds garbage.  An exact pc (the leaf, or
		 * what a signal interrupted) may be new JIT code. */
		return w->exact ? fp_step(w) : stop(w, SP_END_NORULE);
	}
	if (m->table >= SP_UNWIND_RETRY) {
		stat_inc(SP_STAT_UNWIND_NO_TABLE);
		if (m->table == SP_UNWIND_RETRY)
			ask_refresh(w, c->proc, SP_EVENT_RETRY);
		return fp_step(w);
	}
	r = find_row(m->table, pc - m->bias);
	if (!r) {
		stat_inc(SP_STAT_UNWIND_NO_TABLE);
		return fp_step(w);
	}
	return row_step(w, r);
}

/*
 * The user registers: the sample's own when it interrupted user mode,
 * else (or with no sample) those the task saved on entering the kernel.  After a syscall
 * instruction (0f 05) the saved pc is a return address in effect: for a
 * syscall that does not return (rt_sigreturn in __restore_rt, exit) it is
 * past the end of its function, so it is looked up as pc - 1 like one.
 */
static __always_inline bool
user_regs(struct pt_regs *sample_regs, struct task_struct *task, struct walk *w)
{
	struct pt_regs *regs;
	__u8 insn[2];

	w->exact = 1;
	if (sample_regs && (long)PT_REGS_IP(sample_regs) >= 0) {
		w->pc = PT_REGS_IP(sample_regs);
		w->sp = PT_REGS_SP(sample_regs);
		w->bp = PT_REGS_FP(sample_regs);
		return true;
	}
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return false;
	w->pc = regs->ip;
	w->sp = regs->sp;
	w->bp = regs->bp;
	if ((long)w->pc <= 0)
		return false;
	if (bpf_probe_read_user(insn, sizeof(insn), (void *)(w->pc - 2)) == 0 &&
	    insn[0] == 0x0f && insn[1] == 0x05)
		w->exact = 0;
	return true;
}

static __always_inline void
count_end(__u32 end)
{
	if (end == SP_END_COMPLETE)
		stat_inc(SP_STAT_UNWIND_COMPLETE);
	else if (end == SP_END_DEPTH)
		stat_inc(SP_STAT_UNWIND_TRUNC_DEPTH);
	else if (end == SP_END_READ)
		stat_inc(SP_STAT_UNWIND_TRUNC_READ);
	else if (end == SP_END_NORULE)
		stat_inc(SP_STAT_UNWIND_TRUNC_NORULE);
}

/* Walk with the process's tables; false when nothing was recorded. */
static __always_inline bool
walk_tables(struct pt_regs *sample_regs, struct task_struct *task,
	    struct walk *w, struct sp_unwind_proc *proc)
{
	struct walk_ctx c = { .w = w, .proc = proc };
	__u32 tgid = w->tgid;

	if (!user_regs(sample_regs, task, w))
		return false;
	w->asked = 0;
	w->hash = 0;
	w->stack.nframes = 0;
	w->stack.end = SP_END_DEPTH;
	w->py_state = PY_UNKNOWN;
	w->py_emitting = 0;
	if (READ_ONCE(interpreters) && (c.py = bpf_map_lookup_elem(&python_procs, &tgid))) {
		w->fsbase = BPF_CORE_READ(task, thread.fsbase);
		python_begin(w);
	}
	/* a frame (or an eval-loop frame's Python frame) per call, and
	 * one more per eval-loop frame, which steps past it */
	bpf_loop(2 * SP_MAX_STACK_DEPTH + 1, walk_frame, &c, 0);
	if (c.py)
		python_end(w);
	count_end(w->stack.end);
	return w->stack.nframes > 0;
}

/* The kernel's frame-pointer walk of the current task's user stack into
 * the same array (any program type). */
static __always_inline bool
walk_kernel_fp(void *ctx, struct walk *w)
{
	long bytes = bpf_get_stack(ctx, w->stack.pcs, sizeof(w->stack.pcs), BPF_F_USER_STACK);
	__u32 n;

	if (bytes <= 0)
		return false;
	n = bytes / sizeof(__u64);
	w->stack.nframes = n;
	w->stack.end = SP_END_FP;
	w->hash = 0;
	for (__u32 i = 0; i < SP_MAX_STACK_DEPTH && i < n; i++)
		w->hash = hash_step(w->hash, w->stack.pcs[i]);
	return true;
}

static __always_inline bool
same_stack(const struct sp_user_stack *a, const struct sp_user_stack *b)
{
	if (a->nframes != b->nframes)
		return false;
	for (__u32 i = 0; i < SP_MAX_STACK_DEPTH && i < a->nframes; i++)
		if (a->pcs[i] != b->pcs[i])
			return false;
	return true;
}

/* The key of w's stack in map: found equal, or inserted; a different stack
 * under the key sends it to a second key, then it is lost (counted).
 * Keys keep the bits of mask. */
static __always_inline __u64
store_stack(void *map, struct walk *w, __u64 mask)
{
	__u64 key = hash_final(w->hash, w->stack.nframes, mask);

	for (int attempt = 0; attempt < 2; attempt++) {
		struct sp_user_stack *old = bpf_map_lookup_elem(map, &key);
		long err;

		if (!old) {
			err = bpf_map_update_elem(map, &key, &w->stack, BPF_NOEXIST);
			if (!err)
				return key;
			if (err != -EEXIST) {
				stat_inc(SP_STAT_USTACK_MAP_FULL);
				return SP_USTACK_LOST;
			}
			old = bpf_map_lookup_elem(map, &key);	/* another CPU's, just now */
		}
		if (old && same_stack(old, &w->stack))
			return key;
		key = hash_final(hash_step(key, 0x5bd1e995), w->stack.nframes, mask);
	}
	stat_inc(SP_STAT_USTACK_COLLISION);
	return SP_USTACK_LOST;
}

/* Walk the current task's user stack into w (its pcs and hash); false
 * when there is none.  task: the current task, not a kernel thread. */
static __always_inline bool
walk_user_stack(void *ctx, struct pt_regs *sample_regs, struct task_struct *task,
		__u32 tgid, struct walk *w)
{
	struct sp_unwind_proc *proc = NULL;
	bool got;

	w->tgid = tgid;
	if (READ_ONCE(unwind_mode) == SP_UNWIND_AUTO) {
		proc = bpf_map_lookup_elem(&unwind_procs, &tgid);
		if (!proc)
			stat_inc(SP_STAT_UNWIND_NO_PROCESS);
	}
	got = proc ? walk_tables(sample_regs, task, w, proc) : walk_kernel_fp(ctx, w);
	if (!got)
		stat_inc(SP_STAT_USTACK_MISSING);
	return got;
}

static __always_inline __u64
take_user_stack(void *ctx, struct pt_regs *sample_regs, struct task_struct *task,
		__u32 tgid, int gen)
{
	__u32 zero = 0;
	struct walk *w;

	if (task->flags & PF_KTHREAD)
		return SP_USTACK_NONE;
	w = bpf_map_lookup_elem(&walks, &zero);
	if (!w || !walk_user_stack(ctx, sample_regs, task, tgid, w))
		return SP_USTACK_NONE;
	return store_stack(gen ? (void *)&ustacks1 : (void *)&ustacks0, w, ~0ULL);
}

/* The last thread of a process user space described is gone: drop its
 * mapping array and tell user space, which holds table references. */
static __always_inline void
forget_process(struct task_struct *task)
{
	__u32 tgid = task->tgid;
	struct sp_exec_event *e;

	if (task->signal->live.counter != 0)
		return;
	bpf_map_delete_elem(&python_procs, &tgid);	/* its pid may come back as another image */
	if (!bpf_map_lookup_elem(&unwind_procs, &tgid))
		return;
	bpf_map_delete_elem(&unwind_procs, &tgid);
	e = bpf_ringbuf_reserve(&execs, sizeof(*e), 0);
	if (!e) {
		stat_inc(SP_STAT_EXEC_LOST);
		return;
	}
	e->tgid = tgid;
	e->kind = SP_EVENT_EXIT;
	bpf_ringbuf_submit(e, 0);
}

#endif /* USER_STACK_BPF_H */
