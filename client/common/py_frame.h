/*
 * py_frame.h - Python frames as the PMDA names them (docs/design.md,
 * "Frame naming"): "qualname (file:line)", or "qualname (file)" when the
 * line is not known.  pmflame keeps one frame per function unless asked
 * for lines (--lines: stack_path.c), and formats with a place for the
 * file and line (pprof, speedscope) put them there.
 */
#ifndef PY_FRAME_H
#define PY_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct py_frame {
	size_t		qual_len;	/* name[0, qual_len): the qualname */
	size_t		file_at, file_len;	/* name[file_at, + file_len): the file */
	uint32_t	line;		/* 0: none */
};

/* Whether name[0, len) reads as a Python frame (a qualname of
 * identifiers, dots and balanced <...>, then " (file[:line])"); its
 * parts into *f. */
bool py_frame_parse(const char *name, size_t len, struct py_frame *f);
/* A Python frame's ":line" cut from name[0, len) in place (NUL-terminated
 * again); the new length (len itself when it has no line). */
size_t py_frame_strip_line(char *name, size_t len);

#endif /* PY_FRAME_H */
