/*
 * folded_line.c - one line of folded stacks as a sample (folded_line.h).
 */
#include <stdint.h>
#include <string.h>
#include "folded_line.h"

/* Parse the decimal count after the last space; -1 on anything else. */
static int
parse_count(const char *s, uint64_t *count)
{
	uint64_t	v = 0;

	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*count = v;
	return 0;
}

const char *
folded_line_parse(char *line, size_t len, struct stack_sample *s, size_t *stack_len)
{
	char	*space = line + len, *semi;

	if (strlen(line) != len)
		return "NUL byte in line";
	while (space > line && space[-1] != ' ')	/* the count is short */
		space--;
	if (space-- == line)
		return "expected \"frame;frame;... count\"";
	*space = '\0';
	if (parse_count(space + 1, &s->count) < 0)
		return "count is not a non-negative integer";
	if (s->count > UINT64_MAX / 1000000)
		return "count too large";
	while (space > line && space[-1] == ' ')
		*--space = '\0';
	if (line[0] == '\0' || line[0] == ';')
		return "no process frame before the count";
	s->process = line;
	s->stack = space;		/* its NUL: no frames */
	if ((semi = strchr(line, ';')) != NULL) {
		*semi = '\0';
		s->stack = semi + 1;
	}
	/* pmflame's fleet view: Total;[h] host;[p] name;... is that host's */
	if (strcmp(s->process, "Total") == 0 && strncmp(s->stack, "[h] ", 4) == 0 &&
	    (semi = strchr(s->stack, ';')) != NULL && strncmp(semi + 1, "[p] ", 4) == 0) {
		*semi = '\0';
		s->host = s->stack + 4;
		s->stack = semi + 1;
		if (s->host[0] == '\0')
			return "empty host name after \"[h] \"";
	}
	/* pmflame's host view: Total;[p] name;... is the process name again */
	if (strcmp(s->process, "Total") == 0 && strncmp(s->stack, "[p] ", 4) == 0) {
		s->process = (char *)s->stack + 4;
		s->stack = space;
		if ((semi = strchr(s->process, ';')) != NULL) {
			*semi = '\0';
			s->stack = semi + 1;
		}
		if (s->process[0] == '\0')
			return "empty process name after \"[p] \"";
	} else if (strncmp(s->process, "[p] ", 4) == 0) {
		/* DeepFlow's own form types the root: "[p] svc;[t] w0;..." */
		s->process += 4;
		if (s->process[0] == '\0')
			return "empty process name after \"[p] \"";
	}
	*stack_len = (size_t)(space - s->stack);
	return NULL;
}
