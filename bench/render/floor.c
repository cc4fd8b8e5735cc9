/*
 * floor.c - bench driver: the least work any renderer of folded stacks
 * must do, to measure pmflame against.  It reads the input a block at a
 * time, finds each line's count and frames, and interns every frame name
 * (lib/intern, the tree's own hash), so that equal names are known to be
 * equal.  No tree, no output: its time is the floor bench/render/run
 * prints pmflame's ratio to.
 *
 *   floor < in.folded	prints "LINES SAMPLES FRAMES NAMES"
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/intern.h"

#define BLOCK	(1 << 20)

struct counts {
	unsigned long long	lines, samples, frames;
};

/* One line "a;b;c 12" (no newline): its count, each frame interned. */
static int
parse_line(struct intern *names, const char *line, size_t len, struct counts *c)
{
	const char		*sp = line + len, *f, *semi;
	unsigned long long	count = 0;
	uint32_t		id;

	while (sp > line && sp[-1] != ' ')
		sp--;
	if (sp == line || sp == line + len)
		return -1;
	for (f = sp; f < line + len; f++) {
		if (*f < '0' || *f > '9')
			return -1;
		count = count * 10 + (unsigned long long)(*f - '0');
	}
	for (f = line; f < sp - 1; f = semi + 1) {
		if ((semi = memchr(f, ';', (size_t)(sp - 1 - f))) == NULL)
			semi = sp - 1;
		if (intern_put(names, f, (size_t)(semi - f), 0, &id) < 0)
			return -1;
		c->frames++;
	}
	c->lines++;
	c->samples += count;
	return 0;
}

int
main(void)
{
	struct intern	names;
	struct counts	c = { 0, 0, 0 };
	char		*buf = malloc(BLOCK), *p, *nl;
	size_t		have = 0;
	ssize_t		n;

	if (buf == NULL || intern_init(&names) < 0)
		return 1;
	while ((n = read(0, buf + have, BLOCK - have)) > 0) {
		have += (size_t)n;
		for (p = buf; (nl = memchr(p, '\n', have - (size_t)(p - buf))) != NULL; p = nl + 1)
			if (nl > p && parse_line(&names, p, (size_t)(nl - p), &c) < 0) {
				fprintf(stderr, "floor: line %llu: not folded\n", c.lines + 1);
				return 1;
			}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (have == BLOCK) {
			fprintf(stderr, "floor: a line over %d bytes\n", BLOCK);
			return 1;
		}
	}
	if (n < 0 || have > 0) {
		fprintf(stderr, "floor: %s\n", n < 0 ? strerror(errno) : "last line unterminated");
		return 1;
	}
	printf("%llu %llu %llu %zu\n", c.lines, c.samples, c.frames, names.count);
	intern_free(&names);
	free(buf);
	return 0;
}
