/*
 * folded_line.h - one line of folded stacks, the format of stackcollapse-*
 * tools, flamegraph.pl, inferno and stackprof.oncpu.folded:
 *
 *	process;frame;frame;...;frame COUNT
 *
 * The count follows the last space.  pmflame's own host and fleet views
 * (Total;[h] host;[p] process;...) and DeepFlow's typed root ([p] name)
 * are read back as the process (and host) they name.
 */
#ifndef FOLDED_LINE_H
#define FOLDED_LINE_H

#include <stddef.h>
#include "common/sample.h"

/*
 * Split one line (its newline already removed, NUL-terminated) into s's
 * process, host (if the line names one), stack and count; returns NULL or
 * why the line is malformed.  Modifies line in place; *stack_len:
 * strlen(s->stack).
 */
const char *folded_line_parse(char *line, size_t len, struct stack_sample *s,
			      size_t *stack_len);

#endif /* FOLDED_LINE_H */
