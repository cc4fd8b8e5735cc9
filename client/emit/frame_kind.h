/*
 * frame_kind.h - formats with a place of their own for the kind of a
 * frame (pprof's Mapping, speedscope's frame file) carry it there, so
 * names read like the tools' own: "[k] schedule" is schedule in
 * [kernel.kallsyms], "[l] read" read in [shared libraries].
 */
#ifndef FRAME_KIND_H
#define FRAME_KIND_H

/* The file standing for the kind of a frame of type t (K, L, C), or NULL:
 * the program's own frames and unresolved ones ("[/path]") have none. */
const char *frame_kind_file(char type);
/* name without the "[k] " its kind's file carries (name itself if none). */
const char *frame_kind_name(const char *name, char type);

#endif /* FRAME_KIND_H */
