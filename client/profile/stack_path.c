/*
 * stack_path.c - samples to paths (stack_path.h), with no allocation per
 * sample once the scratch space has grown to the longest stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/array.h"
#include "stack_path.h"

/* buf = ["[p] process\0"] ["[t] thread\0"] "stack\0", split in place */
static int
fill(struct stack_path *p, const struct stack_sample *s, bool host_view,
     size_t *thread_at, size_t *stack_at)
{
	size_t	plen = host_view ? strlen(s->process) + 5 : 0;
	size_t	tlen = s->thread ? strlen(s->thread) + 5 : 0;
	size_t	slen = strlen(s->stack) + 1;

	if (array_reserve(&p->buf, &p->buflen, plen + tlen + slen) < 0)
		return -ENOMEM;
	if (host_view) {
		memcpy(p->buf, "[p] ", 4);
		memcpy(p->buf + 4, s->process, plen - 4);
	}
	*thread_at = plen;
	if (s->thread) {
		memcpy(p->buf + plen, "[t] ", 4);
		memcpy(p->buf + plen + 4, s->thread, tlen - 4);
	}
	*stack_at = plen + tlen;
	memcpy(p->buf + *stack_at, s->stack, slen);
	return 0;
}

int
stack_path_split(struct stack_path *p, const struct stack_sample *s, bool host_view)
{
	size_t		nframes = 4, thread_at, stack_at;
	const char	*c;
	char		*f, *semi;

	for (c = s->stack; *c; c++)
		nframes += *c == ';';
	if (array_reserve(&p->v, &p->cap, nframes) < 0 ||
	    fill(p, s, host_view, &thread_at, &stack_at) < 0)
		return -ENOMEM;
	p->n = 0;
	if (host_view) {
		p->v[p->n++] = "Total";
		p->v[p->n++] = p->buf;
	} else
		p->v[p->n++] = s->process;
	if (s->thread)
		p->v[p->n++] = p->buf + thread_at;
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
