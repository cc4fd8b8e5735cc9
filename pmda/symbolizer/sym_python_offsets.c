/*
 * sym_python_offsets.c - the one per-version table of CPython offsets:
 * what neither the binary nor the process says.  x86-64 only.
 *
 * Sources of the numbers:
 * - 3.9: offsetof() over v3.9.2's headers (Debian's python3.9 source,
 *   built by bench/interp/cpython/build 9), Py_BUILD_CORE;
 * - 3.10 and 3.12: summed by hand from v3.10.0's and v3.12.0's structs
 *   (no Debian source to build from), then checked by offsetof() over the
 *   configured release trees (tags v3.10.0 = b494f593, v3.12.0 = 0fb18b02,
 *   from fork snapshots; bench/interp/RESULTS.md): every field matches
 *   (code_size is the offset of co_code_adaptive, as for 3.11);
 * - 3.11: offsetof() over v3.11.2's headers as Debian 12 installs them
 *   (python3.11-dev), which qa/unit/pmda/test_sym_python.c compiles and
 *   compares when installed;
 * - 3.13: what _PyRuntime.debug_offsets does not carry (the frame owner
 *   of a shim, the str object's compact size, tp_members); the rest is
 *   read from the process (sym_python_layout_debug), v3.13.5's struct.
 * Every layout is checked again in the process before use (sym_python.c):
 * PyCode_Type's member table gives the code-object fields, the main
 * interpreter's first thread state the thread-state path, each frame's
 * code object its type.
 *
 * Facts a walker of each version needs (bpf/python.bpf.h):
 * - 3.9, 3.10: PyThreadState.frame is the current PyFrameObject; one per
 *   call of _PyEval_EvalFrameDefault; f_lasti an int, in bytes (3.9) or
 *   code units (3.10); no co_qualname (frames are named by co_name).
 * - 3.11: tstate->cframe->current_frame, _PyInterpreterFrame.is_entry.
 * - 3.12: tstate->cframe->current_frame (at 0 of _PyCFrame); no is_entry:
 *   each call of the eval loop links a frame owned by the C stack
 *   (owner 3) below its own, whose f_code is the interpreter's trampoline.
 * - 3.13: tstate->current_frame; f_executable, not f_code; instr_ptr is
 *   the instruction running (3.11, 3.12: prev_instr, the one before).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "sym_python.h"

#define FRAME_OWNED_BY_CSTACK	3	/* 3.12, 3.13: Include/internal/pycore_frame.h */

static const struct sym_python_layout layouts[] = {
	{
		.major = 3, .minor = 9,
		.runtime_main_interp = 40,	/* _PyRuntimeState.interpreters.main */
		.interp_threads_head = 8,	/* PyInterpreterState.tstate_head */
		.tstate_interp = 16,		/* PyThreadState.interp */
		.tstate_cframe = 24,		/* .frame */
		.tstate_thread_id = 176,	/* .thread_id: pthread_self() */
		.cframe_current = SP_PY_NO_CFRAME,
		.frame_code = 32,		/* PyFrameObject.f_code */
		.frame_previous = 24,		/* .f_back */
		.frame_instr = 104,		/* .f_lasti */
		.entry_kind = SP_PY_ENTRY_EACH, .instr_kind = SP_PY_INSTR_LASTI_BYTES,
		.code_filename = 104,		/* PyCodeObject.co_filename */
		.code_name = 112,		/* .co_name */
		.code_linetable = 120,		/* .co_lnotab */
		.code_firstlineno = 40,		/* .co_firstlineno */
		.code_size = 176,		/* sizeof(PyCodeObject) */
		.linetable_member = "co_lnotab",
		.type_members = 240,		/* PyTypeObject.tp_members */
		.unicode_state = 32,		/* PyASCIIObject.state */
		.unicode_ascii_data = 48,	/* sizeof(PyASCIIObject) */
		.unicode_compact_data = 72,	/* sizeof(PyCompactUnicodeObject) */
		.unicode_ready_bit = true,
		.bytes_data = 32,		/* PyBytesObject.ob_sval */
	},
	{
		.major = 3, .minor = 10,
		.runtime_main_interp = 40, .interp_threads_head = 8,
		.tstate_interp = 16, .tstate_cframe = 24,	/* .frame */
		.tstate_thread_id = 176, .cframe_current = SP_PY_NO_CFRAME,
		.frame_code = 32, .frame_previous = 24,
		.frame_instr = 96,		/* .f_lasti (f_stackdepth, not f_stacktop) */
		.entry_kind = SP_PY_ENTRY_EACH, .instr_kind = SP_PY_INSTR_LASTI_UNITS,
		.code_filename = 104, .code_name = 112,
		.code_linetable = 120,		/* .co_linetable */
		.code_firstlineno = 40, .code_size = 176,
		.linetable_member = "co_linetable",
		.type_members = 240,
		.unicode_state = 32, .unicode_ascii_data = 48, .unicode_compact_data = 72,
		.unicode_ready_bit = true, .bytes_data = 32,
	},
	{
		.major = 3, .minor = 11,
		.runtime_main_interp = 48,	/* _PyRuntimeState.interpreters.main */
		.interp_threads_head = 16,	/* PyInterpreterState.threads.head */
		.tstate_interp = 16,		/* PyThreadState.interp */
		.tstate_cframe = 56,		/* .cframe */
		.tstate_thread_id = 152,	/* .thread_id: pthread_self() */
		.cframe_current = 8,		/* _PyCFrame.current_frame */
		.frame_code = 32,		/* _PyInterpreterFrame.f_code */
		.frame_previous = 48,		/* .previous */
		.frame_instr = 56,		/* .prev_instr */
		.frame_entry = 68,		/* .is_entry */
		.entry_kind = SP_PY_ENTRY_FLAG, .instr_kind = SP_PY_INSTR_PTR,
		.code_filename = 112,		/* PyCodeObject.co_filename */
		.code_name = 120,		/* .co_name */
		.code_qualname = 128,		/* .co_qualname */
		.code_linetable = 136,		/* .co_linetable */
		.code_firstlineno = 72,		/* .co_firstlineno */
		.code_instr0 = 184,		/* .co_code_adaptive */
		.code_size = 184,
		.linetable_member = "co_linetable", .has_qualname = true,
		.type_members = 240,		/* PyTypeObject.tp_members */
		.unicode_state = 32,		/* PyASCIIObject.state */
		.unicode_ascii_data = 48,	/* sizeof(PyASCIIObject) */
		.unicode_compact_data = 72,	/* sizeof(PyCompactUnicodeObject) */
		.unicode_ready_bit = true,
		.bytes_data = 32,		/* PyBytesObject.ob_sval */
	},
	{
		.major = 3, .minor = 12,
		.runtime_main_interp = 48,
		.interp_threads_head = 72,	/* after id..last_restart_version */
		.tstate_interp = 16,
		.tstate_cframe = 56,		/* .cframe, after what_event */
		.tstate_thread_id = 136,
		.cframe_current = 0,
		.frame_code = 0,		/* _PyInterpreterFrame.f_code */
		.frame_previous = 8,
		.frame_instr = 56,		/* .prev_instr */
		.frame_entry = 70,		/* .owner */
		.entry_kind = SP_PY_ENTRY_SHIM, .instr_kind = SP_PY_INSTR_PTR,
		.shim_owner = FRAME_OWNED_BY_CSTACK,
		.code_filename = 112, .code_name = 120, .code_qualname = 128,
		.code_linetable = 136, .code_firstlineno = 68,
		.code_instr0 = 192, .code_size = 192,
		.linetable_member = "co_linetable", .has_qualname = true,
		.type_members = 240,
		.unicode_state = 32,
		.unicode_ascii_data = 40,	/* no wstr since 3.12 */
		.unicode_compact_data = 56,
		.bytes_data = 32,
	},
	{
		.major = 3, .minor = 13,
		.debug_offsets = true,
		.cframe_current = SP_PY_NO_CFRAME,	/* tstate->current_frame */
		.entry_kind = SP_PY_ENTRY_SHIM, .instr_kind = SP_PY_INSTR_PTR,
		.shim_owner = FRAME_OWNED_BY_CSTACK,
		.linetable_member = "co_linetable", .has_qualname = true,
		.type_members = 240,
	},
};

const struct sym_python_layout *
sym_python_layout_for(unsigned major, unsigned minor)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].major == major && layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}

/* 3.13's struct _Py_DebugOffsets, as uint64_t words (pycore_runtime.h) */
enum {
	D_COOKIE = 0, D_VERSION = 1, D_FREE_THREADED = 2,
	D_RUNTIME_INTERP_HEAD = 5,
	D_INTERP_SIZE = 6, D_INTERP_THREADS_HEAD = 9,
	D_TSTATE_SIZE = 19, D_TSTATE_INTERP = 22, D_TSTATE_FRAME = 23, D_TSTATE_THREAD_ID = 24,
	D_FRAME_PREVIOUS = 29, D_FRAME_EXECUTABLE = 30,
	D_FRAME_INSTR = 31, D_FRAME_OWNER = 33,
	D_CODE_SIZE = 34, D_CODE_FILENAME = 35, D_CODE_NAME = 36, D_CODE_QUALNAME = 37,
	D_CODE_LINETABLE = 38, D_CODE_FIRSTLINENO = 39, D_CODE_ADAPTIVE = 43,
	D_OBJECT_TYPE = 45,
	D_BYTES_SVAL = 66,
	D_UNICODE_STATE = 68, D_UNICODE_LENGTH = 69, D_UNICODE_ASCII_SIZE = 70,
};

static uint64_t
word(const uint8_t *buf, unsigned i)
{
	uint64_t v;

	memcpy(&v, buf + i * 8, sizeof(v));
	return v;
}

/* A field of width w at off within a struct of size: fits, and in u16. */
static bool
field(const uint8_t *buf, unsigned i, uint64_t size, unsigned w, uint16_t *out)
{
	uint64_t off = word(buf, i);

	if (off + w > size || off > 0xfff0)
		return false;
	*out = (uint16_t)off;
	return true;
}

int
sym_python_layout_debug(const struct sym_python_layout *base, const uint8_t *buf, size_t n,
			uint32_t version, struct sym_python_layout *out)
{
	struct sym_python_layout L = *base;
	uint64_t tsize, csize, isize;
	uint16_t length, type;

	if (n < PY_DEBUG_OFFSETS_SIZE || memcmp(buf, "xdebugpy", 8) != 0 ||
	    word(buf, D_VERSION) != version || word(buf, D_FREE_THREADED) != 0 ||
	    (word(buf, D_VERSION) >> 16) != (base->major << 8 | base->minor))
		return -EINVAL;
	isize = word(buf, D_INTERP_SIZE);
	tsize = word(buf, D_TSTATE_SIZE);
	csize = word(buf, D_CODE_SIZE);
	if (csize > 4096)
		return -EINVAL;
	if (!field(buf, D_RUNTIME_INTERP_HEAD, 1 << 16, 8, &L.runtime_main_interp) ||
	    !field(buf, D_INTERP_THREADS_HEAD, isize, 8, &L.interp_threads_head) ||
	    !field(buf, D_TSTATE_INTERP, tsize, 8, &L.tstate_interp) ||
	    !field(buf, D_TSTATE_FRAME, tsize, 8, &L.tstate_cframe) ||
	    !field(buf, D_TSTATE_THREAD_ID, tsize, 8, &L.tstate_thread_id) ||
	    !field(buf, D_FRAME_PREVIOUS, SP_PY_FRAME_READ, 8, &L.frame_previous) ||
	    !field(buf, D_FRAME_EXECUTABLE, SP_PY_FRAME_READ, 8, &L.frame_code) ||
	    !field(buf, D_FRAME_INSTR, SP_PY_FRAME_READ, 8, &L.frame_instr) ||
	    !field(buf, D_FRAME_OWNER, SP_PY_FRAME_READ, 1, &L.frame_entry) ||
	    !field(buf, D_CODE_FILENAME, csize, 8, &L.code_filename) ||
	    !field(buf, D_CODE_NAME, csize, 8, &L.code_name) ||
	    !field(buf, D_CODE_QUALNAME, csize, 8, &L.code_qualname) ||
	    !field(buf, D_CODE_LINETABLE, csize, 8, &L.code_linetable) ||
	    !field(buf, D_CODE_FIRSTLINENO, csize, 4, &L.code_firstlineno) ||
	    !field(buf, D_CODE_ADAPTIVE, csize, 0, &L.code_instr0) ||
	    !field(buf, D_OBJECT_TYPE, 16, 8, &type) || type != PY_OB_TYPE ||
	    !field(buf, D_UNICODE_LENGTH, 64, 8, &length) || length != PY_OB_SIZE ||
	    !field(buf, D_UNICODE_STATE, 64, 4, &L.unicode_state) ||
	    !field(buf, D_UNICODE_ASCII_SIZE, 64, 0, &L.unicode_ascii_data) ||
	    !field(buf, D_BYTES_SVAL, 64, 0, &L.bytes_data))
		return -EINVAL;
	L.code_size = L.code_instr0;
	/* PyCompactUnicodeObject: the ASCII header, utf8_length, utf8 */
	L.unicode_compact_data = L.unicode_ascii_data + 16;
	L.debug_offsets = false;	/* filled */
	*out = L;
	return 0;
}
