/*
 * stack_path.c - samples to paths (stack_path.h), with no allocation per
 * sample once the scratch space has grown to the longest stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/array.h"
#include "stack_path.h"

/* "[x] name\0" at *at in p->buf (room reserved); its start. */
static char *
put_layer(struct stack_path *p, size_t *at, const char *prefix, const char *name, size_t len)
{
	char	*start = p->buf + *at;

	memcpy(start, prefix, 4);
	memcpy(start + 4, name, len + 1);
	*at += len + 5;
	return start;
}

/* buf = ["[h] host\0"] ["[p] process\0"] ["[t] thread\0"] "stack\0", the
 * layers on the path; *stack_at: where the stack starts in buf. */
static int
fill(struct stack_path *p, const struct stack_sample *s, enum stack_root root,
     size_t *stack_at)
{
	size_t	hlen = root == ROOT_FLEET ? strlen(s->host) : 0;
	size_t	plen = root != ROOT_PROCESS ? strlen(s->process) : 0;
	size_t	tlen = s->thread ? strlen(s->thread) : 0;
	size_t	slen = strlen(s->stack) + 1, at = 0;

	if (array_reserve(&p->buf, &p->buflen, hlen + plen + tlen + slen + 15) < 0)
		return -ENOMEM;
	p->n = 0;
	if (root != ROOT_PROCESS)
		p->v[p->n++] = "Total";
	if (root == ROOT_FLEET)
		p->v[p->n++] = put_layer(p, &at, "[h] ", s->host, hlen);
	if (root != ROOT_PROCESS)
		p->v[p->n++] = put_layer(p, &at, "[p] ", s->process, plen);
	else
		p->v[p->n++] = s->process;
	if (s->thread)
		p->v[p->n++] = put_layer(p, &at, "[t] ", s->thread, tlen);
	memcpy(p->buf + at, s->stack, slen);
	*stack_at = at;
	return 0;
}

int
stack_path_split(struct stack_path *p, const struct stack_sample *s, enum stack_root root)
{
	size_t		nframes = 5, stack_at;
	const char	*c;
	char		*f, *semi;

	for (c = s->stack; *c; c++)
		nframes += *c == ';';
	if (array_reserve(&p->v, &p->cap, nframes) < 0 || fill(p, s, root, &stack_at) < 0)
		return -ENOMEM;
	for (f = p->buf + stack_at; f != NULL; f = semi) {
		if ((semi = strchr(f, ';')) != NULL)
			*semi++ = '\0';
		if (*f != '\0')
			p->v[p->n++] = f;
	}
	return 0;
}

void
stack_path_free(struct stack_path *p)
{
	free(p->v);
	free(p->buf);
	memset(p, 0, sizeof(*p));
}
