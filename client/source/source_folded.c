/*
 * source_folded.c - read folded stacks, the format of stackcollapse-*
 * tools, flamegraph.pl, inferno and stackprof.oncpu.folded:
 *
 *	process;frame;frame;...;frame COUNT
 *
 * The count follows the last space; blank lines are skipped; anything else
 * that does not fit is an error naming the line, because a profile built
 * from half a file would be quietly wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "source.h"

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

/*
 * Split one line (trailing newline already removed) into a sample; returns
 * NULL or a reason.  Modifies line in place.
 */
static const char *
parse_line(char *line, size_t len, struct stack_sample *s)
{
	char	*space, *semi;

	if (strlen(line) != len)
		return "NUL byte in line";
	if ((space = strrchr(line, ' ')) == NULL)
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
	s->stack = "";
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
		s->stack = "";
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
	return NULL;
}

#define BLOCK	(1 << 20)	/* read a block at a time: no copy of each line */

/* Lines of f from a buffer read a block at a time; the longest line
 * decides how far it grows. */
struct line_reader {
	FILE	*f;
	char	*buf;
	size_t	cap, start, end;	/* unread bytes: buf[start .. end) */
	int	eof;
};

/* The next line without its newline, NUL-terminated in place, and its
 * length; NULL at the end (or on a read error: ferror(f) says). */
static char *
next_line(struct line_reader *r, size_t *len)
{
	char	*nl, *line;

	for (;;) {
		line = r->buf + r->start;
		if ((nl = memchr(line, '\n', r->end - r->start)) != NULL) {
			*len = (size_t)(nl - line);
			*nl = '\0';
			r->start += *len + 1;
			return line;
		}
		if (r->eof) {
			if (r->start == r->end)
				return NULL;
			*len = r->end - r->start;
			line[*len] = '\0';	/* the last line, unterminated */
			r->start = r->end;
			return line;
		}
		/* keep the partial line, then fill after it */
		memmove(r->buf, line, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
		if (r->cap - r->end < BLOCK / 2) {
			char	*bigger = realloc(r->buf, r->cap * 2);

			if (bigger == NULL)
				return NULL;
			r->buf = bigger;
			r->cap *= 2;
		}
		r->end += fread(r->buf + r->end, 1, r->cap - r->end - 1, r->f);
		if (feof(r->f) || ferror(r->f))
			r->eof = 1;
	}
}

int
source_folded_read(const char *path, const char *host, unsigned frequency,
		   stack_sample_fn fn, void *arg, char *err, size_t errlen)
{
	FILE			*f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	const char		*name = f == stdin ? "(stdin)" : path, *why;
	struct line_reader	r = { .f = f, .cap = BLOCK };
	char			*line;
	size_t			len;
	unsigned long		lineno = 0;
	int			sts = 0;

	if (f == NULL) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if ((r.buf = malloc(r.cap)) == NULL) {
		snprintf(err, errlen, "out of memory");
		if (f != stdin)
			fclose(f);
		return -1;
	}
	while ((line = next_line(&r, &len)) != NULL) {
		struct stack_sample	s = { .host = host, .event = "on-cpu" };

		lineno++;
		while (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len == 0)
			continue;
		if ((why = parse_line(line, len, &s)) != NULL) {
			snprintf(err, errlen, "%s:%lu: malformed folded line: %s", name, lineno, why);
			sts = -1;
			break;
		}
		/* rounded, so 1 sample at 99 Hz is 10101 us, as DeepFlow shows */
		s.value_us = s.count / frequency * 1000000 +
			     (s.count % frequency * 1000000 + frequency / 2) / frequency;
		if ((sts = fn(arg, &s)) < 0) {
			snprintf(err, errlen, "%s:%lu: %s", name, lineno, strerror(-sts));
			sts = -1;
			break;
		}
	}
	if (sts == 0 && ferror(f)) {
		snprintf(err, errlen, "cannot read %s: %s", name, strerror(errno));
		sts = -1;
	} else if (sts == 0 && !r.eof) {
		snprintf(err, errlen, "%s:%lu: out of memory", name, lineno + 1);
		sts = -1;
	}
	free(r.buf);
	if (f != stdin)
		fclose(f);
	return sts;
}
