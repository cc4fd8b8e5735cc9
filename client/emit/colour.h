/*
 * colour.h - the colour of a frame, by its DeepFlow type and name: the
 * flame graph SVG and the heat map's flame graph draw a function alike.
 */
#ifndef COLOUR_H
#define COLOUR_H

struct rgb {
	unsigned	r, g, b;
};

/* A hue per type letter (tree.h), varied by a hash of the name that is
 * stable across runs; an unknown type is coloured as application code. */
struct rgb frame_colour(char type, const char *name);

/* One hue for every frame, varied by the name's hash: 'B' blues (off-CPU
 * time, as Gregg's off-CPU graphs), 'G' greens (memory); else as
 * frame_colour. */
struct rgb frame_colour_in(char palette, char type, const char *name);

#endif /* COLOUR_H */
