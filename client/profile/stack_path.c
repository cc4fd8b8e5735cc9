/*
 * stack_path.c - samples to paths (stack_path.h), with no allocation per
 * sample once the scratch space has grown to the longest stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "common/py_frame.h"
#include "stack_path.h"

/* Room for n more names on the path. */
static int
path_reserve(struct stack_path *p, size_t n)
{
	if (array_reserve(&p->v, &p->cap, p->n + n) < 0 ||
	    array_reserve(&p->len, &p->len_cap, p->n + n) < 0)
		return -ENOMEM;
	return 0;
}

/* The next name of the path (room reserved). */
static void
push(struct stack_path *p, const char *name, size_t len)
{
	p->v[p->n] = name;
	p->len[p->n++] = len;
}

/* "[x] name\0" at *at in p->buf (room reserved), onto the path. */
static void
put_layer(struct stack_path *p, size_t *at, const char *prefix, const char *name, size_t len)
{
	char	*start = p->buf + *at;

	memcpy(start, prefix, 4);
	memcpy(start + 4, name, len + 1);
	*at += len + 5;
	push(p, start, len + 4);
}

/* buf = ["[h] host\0"] ["[p] process\0"] ["[t] thread\0"], then room for
 * the stack's slen bytes; the layers on the path; *stack_at: where the
 * stack's names go in buf. */
static int
fill(struct stack_path *p, const struct stack_sample *s, enum stack_root root, size_t slen,
     size_t *stack_at)
{
	size_t	hlen = root == ROOT_FLEET ? strlen(s->host) : 0;
	size_t	plen = root != ROOT_PROCESS ? strlen(s->process) : 0;
	size_t	tlen = s->thread ? strlen(s->thread) : 0;
	size_t	at = 0;

	p->n = 0;
	if (path_reserve(p, 4) < 0 ||
	    array_reserve(&p->buf, &p->buflen, hlen + plen + tlen + slen + 16) < 0)
		return -ENOMEM;
	if (root != ROOT_PROCESS)
		push(p, "Total", 5);
	if (root == ROOT_FLEET)
		put_layer(p, &at, "[h] ", s->host, hlen);
	if (root != ROOT_PROCESS)
		put_layer(p, &at, "[p] ", s->process, plen);
	else
		push(p, s->process, strlen(s->process));
	if (s->thread)
		put_layer(p, &at, "[t] ", s->thread, tlen);
	*stack_at = at;
	return 0;
}

/* One pass over the stack: each non-empty name copied with its NUL and
 * pushed, its length known from where its ';' was found (less a Python
 * frame's line). */
int
stack_path_split(struct stack_path *p, const struct stack_sample *s, enum stack_root root)
{
	size_t		slen = strlen(s->stack), at, len;
	const char	*next = s->stack, *end = next + slen, *f;

	if (fill(p, s, root, slen, &at) < 0)
		return -ENOMEM;
	while ((f = stack_next_frame(&next, end, &len)) != NULL) {
		if (path_reserve(p, 1) < 0)
			return -ENOMEM;
		memcpy(p->buf + at, f, len);
		p->buf[at + len] = '\0';
		/* one frame per function, as flame graphs merge: the line cut */
		push(p, p->buf + at, p->lines ? len : py_frame_strip_line(p->buf + at, len));
		at += len + 1;
	}
	return 0;
}

int
stack_path_layers(struct stack_path *p, const struct stack_sample *s, enum stack_root root)
{
	size_t	at;

	return fill(p, s, root, 0, &at);
}

void
stack_path_free(struct stack_path *p)
{
	free(p->v);
	free(p->len);
	free(p->buf);
	memset(p, 0, sizeof(*p));
}
