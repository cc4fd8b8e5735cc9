/*
 * colour.c - frame colours: a base colour and spread per DeepFlow type
 * (application red, kernel orange, library yellow, CUDA green, unresolved
 * aqua, thread blue, process purple, host grey, memory object pink),
 * varied by the name's FNV-1a hash.
 */
#include <stddef.h>
#include "lib/hash.h"
#include "colour.h"

/* Base colour and spread per DeepFlow type letter. */
static const struct {
	char		type;
	struct rgb	base, spread;
} palette[] = {
	{ 'A', { 200,  40,  20 }, {  55,  70,  50 } },	/* application: reds */
	{ 'K', { 220, 130,   0 }, {  35,  50,  40 } },	/* kernel: orange */
	{ 'L', { 190, 190,  40 }, {  50,  50,  40 } },	/* shared library: yellow */
	{ 'C', {  50, 160,  50 }, {  60,  60,  50 } },	/* CUDA driver: green */
	{ '?', {  50, 170, 170 }, {  60,  60,  60 } },	/* JIT / unresolved: aqua */
	{ 'T', { 120, 120, 205 }, {  50,  50,  50 } },	/* thread: blue */
	{ 'P', { 140, 110, 200 }, {  50,  50,  55 } },	/* process: purple */
	{ 'H', { 150, 150, 170 }, {  40,  40,  40 } },	/* host / all: grey */
	{ 'O', { 210, 110, 160 }, {  40,  60,  60 } },	/* memory object: pink */
};

struct rgb
frame_colour(char type, const char *name)
{
	uint32_t	h = hash_stable32(name);
	size_t		i, p = 0;
	struct rgb	c;

	for (i = 0; i < sizeof(palette) / sizeof(palette[0]); i++)
		if (palette[i].type == type)
			p = i;
	c.r = palette[p].base.r + palette[p].spread.r * (h & 0xff) / 255;
	c.g = palette[p].base.g + palette[p].spread.g * ((h >> 8) & 0xff) / 255;
	c.b = palette[p].base.b + palette[p].spread.b * ((h >> 16) & 0xff) / 255;
	return c;
}

struct rgb
frame_colour_in(char palette, char type, const char *name)
{
	uint32_t	h = hash_stable32(name);
	unsigned	x = h & 0xff, y = (h >> 8) & 0xff;

	if (palette == 'B')	/* flamegraph.pl's "blue" */
		return (struct rgb){ 80 + 60 * x / 255, 80 + 60 * x / 255, 190 + 55 * y / 255 };
	if (palette == 'A')	/* flamegraph.pl's "aqua", its "wakeup" colours */
		return (struct rgb){ 50 + 60 * x / 255, 165 + 55 * x / 255, 165 + 55 * x / 255 };
	if (palette == 'G')	/* flamegraph.pl's "mem" */
		return (struct rgb){ 0, 190 + 50 * y / 255, 210 * x / 255 };
	return frame_colour(type, name);
}
