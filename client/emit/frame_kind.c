/*
 * frame_kind.c - the file that stands for a frame's kind in formats that
 * have a place for it (see frame_kind.h).
 */
#include <stddef.h>
#include "frame_kind.h"

const char *
frame_kind_file(char type)
{
	switch (type) {
	case 'K': return "[kernel.kallsyms]";	/* perf's name for the kernel */
	case 'L': return "[shared libraries]";
	case 'C': return "[cuda]";
	default: return NULL;
	}
}

const char *
frame_kind_name(const char *name, char type)
{
	/* "[k] ", "[l] ", "[c] ": the tree typed the frame by this prefix */
	if (frame_kind_file(type) != NULL && name[0] == '[' && name[1] != '\0' &&
	    name[2] == ']' && name[3] == ' ')
		return name + 4;
	return name;
}
