/*
 * sym_python.h - CPython inside the symbolizer: finding a process's
 * interpreter and checking the offsets the BPF walker will use
 * (sym_python.c), naming the code objects it records (sym_python_name.c),
 * the pure decoders both use (sym_python_decode.c, fuzzed by
 * qa/fuzz/pmda/fuzz_sym_python.c; line tables, sym_python_lines.c, by
 * fuzz_sym_python_lines.c) and their reads of the process's memory
 * (sym_python_read.c).  Design: "Interpreter frames" in
 * docs/design.md.
 */
#ifndef SYM_PYTHON_H
#define SYM_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "stackprof.h"
#include "symbolize.h"

/* Offsets of one CPython minor version (sym_python_offsets.c). */
struct sym_python_layout {
	unsigned	major, minor;
	uint16_t	runtime_main_interp;
	uint16_t	interp_threads_head;
	uint16_t	tstate_interp, tstate_cframe, tstate_thread_id;
	uint16_t	cframe_current;		/* SP_PY_NO_CFRAME: tstate_cframe is the frame */
	uint16_t	frame_code, frame_previous, frame_instr, frame_entry;
	uint8_t		entry_kind, instr_kind, shim_owner;	/* enum sp_py_entry, sp_py_instr */
	uint16_t	code_filename, code_name, code_qualname, code_linetable;
	uint16_t	code_firstlineno, code_instr0;	/* code_instr0 0: bytecode not inline */
	uint16_t	code_size;		/* bytes of a code object naming reads */
	const char	*linetable_member;	/* its name in PyCode_Type's members */
	bool		has_qualname;		/* 3.11+ (3.9, 3.10: co_name alone) */
	bool		debug_offsets;		/* 3.13+: the 0 fields come from _Py_DebugOffsets */
	uint16_t	type_members;
	uint16_t	unicode_state, unicode_ascii_data, unicode_compact_data;
	bool		unicode_ready_bit;	/* state has "ready" (bit 7) up to 3.11 */
	uint16_t	bytes_data;
};
const struct sym_python_layout *sym_python_layout_for(unsigned major, unsigned minor);
/* The layout of a 3.13+ process from its _PyRuntime.debug_offsets (buf
 * holds n bytes read from _PyRuntime's start) over base's fixed fields:
 * 0, or -EINVAL when the cookie, the version (Py_Version's), the build
 * (free-threaded ones are not read) or any offset does not check out. */
int sym_python_layout_debug(const struct sym_python_layout *base, const uint8_t *buf, size_t n,
			    uint32_t version, struct sym_python_layout *out);
#define PY_DEBUG_OFFSETS_SIZE	584	/* 3.13's struct _Py_DebugOffsets */

/* Stable across 3.x: PyObject.ob_type, PyVarObject.ob_size and
 * PyASCIIObject.length, PyMemberDef {name, type, offset, flags, doc}. */
#define PY_OB_TYPE		8
#define PY_OB_SIZE		16
#define PY_MEMBERDEF_SIZE	40
#define PY_MEMBERDEF_OFFSET	16
#define PY_CODE_READ		256	/* >= every layout's code_size */
#define PY_NAME_MAX		512	/* bytes of a decoded name we keep */
#define PY_STR_MAX_CHARS	4096	/* longer strings are not names */
#define PY_LINETABLE_MAX	8192	/* bytes of a line table kept (the units it covers get lines) */

/* ---- pure decoders (no process, no allocation) ---- */

/* A str object's text as UTF-8 from its bytes obj[0, n) (n covers the
 * header and as much data as was read: the characters in it are
 * decoded): out gets at most outlen - 1 bytes, NUL-terminated, cut at a
 * character boundary.  false when obj is not a ready compact str this
 * layout describes. */
bool sym_python_str(const struct sym_python_layout *L, const uint8_t *obj, size_t n,
		    char *out, size_t outlen);
/* Bytes needed to decode a str whose header is obj[0, n) (n >= data
 * offset), or 0 when the header is no str's. */
size_t sym_python_str_size(const struct sym_python_layout *L, const uint8_t *obj, size_t n);

/* The fields of a code object read whole (obj[0, n), n >= code_size). */
struct sym_python_code {
	uint64_t	type, filename, name, qualname, linetable;
	int32_t		firstlineno;
};
bool sym_python_code_fields(const struct sym_python_layout *L, const uint8_t *obj, size_t n,
			    struct sym_python_code *c);

/* The length of a bytes object (a line table) whose header is obj[0, n)
 * (n >= bytes_data), or -1 when its ob_size is no length up to max. */
int64_t sym_python_bytes_len(const struct sym_python_layout *L, const uint8_t *obj, size_t n,
			     size_t max);

/* The line code unit `unit` of a code object is at, from its line table
 * table[0, n) (co_lnotab of 3.9, co_linetable of 3.10 and of 3.11+, as
 * minor says) and co_firstlineno; -1 when the table gives it none or
 * does not reach it (sym_python_lines.c). */
int32_t sym_python_line(unsigned minor, const uint8_t *table, size_t n, int32_t firstlineno,
			uint64_t unit);

/* "qualname (filename:line)" into out, "qualname (filename)" when line
 * < 1 (the file cut first, then dropped with the line, to fit; no file:
 * "qualname"), sanitized as one folded frame. */
void sym_python_frame_text(const char *qualname, const char *filename, int32_t line, char *out,
			   size_t len);

/* ---- a process's interpreter (sym_python.c) ---- */

struct sym_proc;
struct sym_python;		/* per process: record, types, name cache */

/* sym_python_read.c: read n bytes at addr of pid; false unless all were read. */
bool sym_python_read(pid_t pid, uint64_t addr, void *buf, size_t n);

/* Look for CPython in p's mappings; 0 and *rec filled, -ENOENT (not
 * CPython), -ENOTSUP (a CPython whose version or offsets we cannot
 * trust; counted in unsupported) or -ESRCH (gone).  Keeps what naming
 * needs in p->python. */
int sym_python_detect(struct sym_proc *p, struct sp_python_proc *rec,
		      struct symbolizer_python_stats *cnt);
/* Keep in p->python what naming p's code objects needs (replacing any
 * earlier); 0 or -ENOMEM. */
int sym_python_attach(struct sym_proc *p, const struct sym_python_layout *L,
		      uint64_t code_type, uint64_t unicode_type);
/* Name the Python frame ip (SP_INTERP_TAG set) of p; false when it has
 * no name (out then holds a fallback). */
bool sym_python_name(struct sym_proc *p, uint64_t ip, char *out, size_t len,
		     struct symbolizer_python_stats *cnt);
size_t sym_python_bytes(const struct sym_python *py);
void sym_python_free(struct sym_python *py);

#endif /* SYM_PYTHON_H */
