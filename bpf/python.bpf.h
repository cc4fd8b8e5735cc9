/* SPDX-License-Identifier: GPL-2.0 */
/*
 * python.bpf.h - CPython frames in user stacks: included by
 * user_stack.bpf.h, whose walker calls
 *
 *   python_enter(w, py)   at a native frame inside the eval loop
 *   python_frame(w, py)   once per Python frame, until it returns 0
 *
 * The thread state is the walked thread's own, read through its TLS (fs
 * base + the offset user space derived from the process's pthread key),
 * never the GIL holder's: a thread blocked in time.sleep shows its own
 * frames.  It must point at the interpreter user space found, else the
 * eval-loop frame stays native (SP_STAT_INTERP_NO_THREAD).  Which of the
 * thread's frames belong to one call of the eval loop depends on the
 * version (struct sp_python_proc's entry_kind): 3.9 and 3.10 run one
 * frame per call, 3.11 marks a call's first frame, 3.12 and later end a
 * call's frames with a shim frame on the C stack.  Frames are read
 * PY_WINDOW bytes at a time, below the frame's end and down to its page's
 * start at most (always mapped: the frame is on it): from 3.11 a thread's
 * frames lie on its data stack, callers below callees, so most frames
 * cost no read of their own (3.9's and 3.10's are heap objects: mostly
 * one each); counts are added once per walk.  A chain that is
 * unreadable, misaligned or
 * points at itself ends the Python walk (SP_STAT_INTERP_BAD_CHAIN) and the
 * native walk goes on.  Depth is the stack's own bound.
 *
 * Layout of the record and of a Python frame's pcs entry: bpf/stackprof.h.
 */
#ifndef PYTHON_BPF_H
#define PYTHON_BPF_H

/* Set by user space: stackprof.control.interpreters. */
__u32 interpreters = 1;

/* tgid -> the process's CPython record (user space keeps it). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct sp_python_proc);
} python_procs SEC(".maps");

enum py_state {
	PY_UNKNOWN = 0,			/* thread state not looked up yet */
	PY_READY,			/* w->py_frame is the next frame to emit */
	PY_NONE,			/* no (more) Python frames in this stack */
};

#define PY_ADDR_MAX	(1ULL << 47)

static __always_inline bool
py_in_eval(const struct sp_python_proc *py, __u64 pc)
{
	return pc - py->eval_start < py->eval_end - py->eval_start;
}

static __always_inline bool
py_ptr_ok(__u64 p)
{
	return p != 0 && p < PY_ADDR_MAX && (p & 7) == 0;
}

static __always_inline __u64
py_read_ptr(__u64 addr, bool *ok)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		*ok = false;
	return v;
}

/* The window's 8 bytes at off (0 if they lie outside it).  off is
 * checked on the register the load uses; the load may be misaligned
 * (x86 takes it), which saves the byte-wise copy a memcpy compiles to. */
static __always_inline __u64
py_win_u64(const struct walk *w, __u64 off)
{
	asm volatile("" : "+r"(off));
	if (off > PY_WINDOW - 8)
		return 0;
	return *(const __u64 *)(w->py_win + off);
}

/* The walked thread's current Python frame, once per walk.  The thread
 * state's two fields come from one read spanning both (3.9 to 3.13 keep
 * them within 64 bytes): three dependent reads for 3.11 and 3.12, two for
 * the others.  The window is empty then
 * (python_begin), so the read borrows it. */
#define PY_TSTATE_SPAN	256
static __always_inline void
py_find_thread(struct walk *w, const struct sp_python_proc *py)
{
	bool ok = true;
	__u64 tstate, interp, cframe, frame, lo, len;
	__u16 a = py->tstate_interp, b = py->tstate_cframe;

	w->py_state = PY_NONE;
	tstate = py_read_ptr(w->fsbase + py->tstate_tls, &ok);
	if (!ok || !py_ptr_ok(tstate))
		goto none;
	lo = a < b ? a : b;
	len = (a < b ? b : a) + 8 - lo;
	asm volatile("" : "+r"(len));
	if (len <= PY_TSTATE_SPAN) {
		if (bpf_probe_read_user(w->py_win, len, (void *)(tstate + lo)))
			goto none;
		interp = py_win_u64(w, a - lo);
		cframe = py_win_u64(w, b - lo);
	} else {			/* no version yet: the two reads apart */
		interp = py_read_ptr(tstate + a, &ok);
		cframe = py_read_ptr(tstate + b, &ok);
	}
	if (!ok || interp != py->interp)
		goto none;
	if (py->cframe_current == SP_PY_NO_CFRAME) {
		frame = cframe;		/* 3.9, 3.10, 3.13: the frame itself */
	} else {
		if (!py_ptr_ok(cframe))
			goto none;
		frame = py_read_ptr(cframe + py->cframe_current, &ok);
		if (!ok)
			goto none;
	}
	w->py_frame = frame;
	w->py_state = frame ? PY_READY : PY_NONE;
	return;
none:
	stat_inc(SP_STAT_INTERP_NO_THREAD);
}

/* At a native frame in the eval loop: true when Python frames follow
 * (the walker then calls python_frame until it returns 0). */
static __always_inline bool
python_enter(struct walk *w, const struct sp_python_proc *py)
{
	if (w->py_state == PY_UNKNOWN)
		py_find_thread(w, py);
	if (w->py_state != PY_READY)
		return false;
	w->py_emitted = 0;
	w->py_loops++;
	return true;
}

static __always_inline void
python_begin(struct walk *w)
{
	w->py_loops = w->py_frames = 0;
	w->py_win_lo = w->py_win_hi = 0;
}

static __always_inline void
python_end(const struct walk *w)
{
	if (w->py_loops)
		stat_add(SP_STAT_INTERP_LOOPS, w->py_loops);
	if (w->py_frames)
		stat_add(SP_STAT_INTERP_FRAMES, w->py_frames);
}

/* Where the PY_FRAME_READ bytes at frame are in the window, which is read
 * anew unless it holds them.  -1: unreadable.  The fields are then read
 * in place (py_field), not copied out. */
static __always_inline long
py_read_frame(struct walk *w, __u64 frame)
{
	__u64 end = frame + PY_FRAME_READ, lo, len;

	if (frame < w->py_win_lo || end > w->py_win_hi) {
		lo = frame & ~4095ULL;
		if (end - lo > PY_WINDOW)
			lo = end - PY_WINDOW;
		len = end - lo;
		asm volatile("" : "+r"(len));	/* keep the bound check on this register */
		if (len > PY_WINDOW || bpf_probe_read_user(w->py_win, len, (void *)lo)) {
			w->py_win_hi = 0;
			return -1;
		}
		w->py_win_lo = lo;
		w->py_win_hi = end;
	}
	return frame - w->py_win_lo;
}

/* A field of the frame at off in the window (0 if fo is out of the
 * PY_FRAME_READ bytes). */
static __always_inline __u64
py_field(const struct walk *w, __u64 off, __u16 fo)
{
	if (fo > PY_FRAME_READ - 8)
		return 0;
	return py_win_u64(w, off + fo);
}

/* The code unit the frame is at, saturated. */
static __always_inline __u64
py_index(const struct walk *w, const struct sp_python_proc *py, __u64 off, __u64 code)
{
	__u64 instr = py_field(w, off, py->frame_instr), index = 0;
	__s32 lasti = (__s32)instr;

	if (py->instr_kind == SP_PY_INSTR_PTR) {
		if (instr >= code + py->code_instr0)
			index = (instr - code - py->code_instr0) / 2;
	} else if (lasti > 0) {		/* -1: not started */
		index = py->instr_kind == SP_PY_INSTR_LASTI_BYTES ? (__u64)lasti / 2 : (__u64)lasti;
	}
	return index > SP_INTERP_INDEX_MAX ? SP_INTERP_INDEX_MAX : index;
}

/* Record the next Python frame of this eval-loop frame.  1: more follow;
 * 0: this eval-loop frame's chain is done (its first frame recorded, its
 * shim passed, or nothing recordable left). */
static __always_inline long
python_frame(struct walk *w, const struct sp_python_proc *py)
{
	__u64 frame = w->py_frame, code, prev, index, mo;
	__u32 n = w->stack.nframes;
	__u16 e = py->frame_entry;
	__u8 mark = 0;
	long off;
	bool entry;

	if (w->py_state != PY_READY)
		return 0;
	if (!py_ptr_ok(frame) || (off = py_read_frame(w, frame)) < 0)
		goto bad;
	code = py_field(w, off, py->frame_code);
	prev = py_field(w, off, py->frame_previous);
	mo = off + e;
	asm volatile("" : "+r"(mo));
	if (e < PY_FRAME_READ && mo < PY_WINDOW)
		mark = w->py_win[mo];
	if (prev == frame)
		goto bad;
	if (py->entry_kind == SP_PY_ENTRY_SHIM && mark == py->shim_owner) {
		/* this call's shim: its frames are done, the caller's follow */
		w->py_frame = prev;
		if (!prev)
			w->py_state = PY_NONE;
		return 0;
	}
	if (!py_ptr_ok(code))
		goto bad;
	entry = py->entry_kind == SP_PY_ENTRY_EACH || (py->entry_kind == SP_PY_ENTRY_FLAG && mark);
	index = py_index(w, py, off, code);
	if (n >= SP_MAX_STACK_DEPTH)
		return 0;
	w->stack.pcs[n] = SP_INTERP_TAG | ((__u64)SP_INTERP_PYTHON << SP_INTERP_KIND_SHIFT) |
			  (index << SP_INTERP_INDEX_SHIFT) | (code >> 3);
	w->stack.nframes = n + 1;
	w->hash = hash_step(w->hash, w->stack.pcs[n]);
	w->py_emitted++;
	w->py_frames++;
	w->py_frame = prev;
	if (!prev)
		w->py_state = PY_NONE;
	return entry || !prev ? 0 : 1;
bad:
	stat_inc(SP_STAT_INTERP_BAD_CHAIN);
	w->py_state = PY_NONE;
	return 0;
}

#endif /* PYTHON_BPF_H */
