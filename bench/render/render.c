/*
 * render.c - bench driver: folded stacks in, one emitter's output out,
 * through the same tree and emitters as pmflame (the build/client libraries).  Lets
 * bench/render time the tree + emitters alone, next to pmflame -i.
 *
 *   render json|svg|folded < in.folded > out
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emit/emit.h"

#define MAX_FRAMES	4096

/* "a;b;c 12" -> path, count; 0 on success. */
static int
split_line(char *line, const char **path, size_t *n, unsigned long long *count)
{
	char	*sp = strrchr(line, ' '), *p, *end;

	if (sp == NULL)
		return -1;
	*sp = '\0';
	*count = strtoull(sp + 1, &end, 10);
	if (end == sp + 1)
		return -1;
	for (*n = 0, p = line; *n < MAX_FRAMES; p++) {
		path[(*n)++] = p;
		if ((p = strchr(p, ';')) == NULL)
			break;
		*p = '\0';
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct flame_tree	*t = flame_tree_new();
	struct emit_options	o;
	struct membuf		out;
	const char		*path[MAX_FRAMES];
	char			*line = NULL;
	size_t			cap = 0, n, lineno = 0;
	ssize_t			len;
	unsigned long long	count;
	int			sts;

	if (argc != 2 || t == NULL) {
		fprintf(stderr, "usage: render json|svg|folded < folded > out\n");
		return 2;
	}
	while ((len = getline(&line, &cap, stdin)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (split_line(line, path, &n, &count) < 0 ||
		    flame_tree_add(t, path, n, count, count * 10000) < 0) {
			fprintf(stderr, "render: bad line %zu\n", lineno);
			return 1;
		}
	}
	free(line);
	if (flame_tree_finish(t) < 0)
		return 1;
	membuf_init(&out);
	emit_options_default(&o);
	if (strcmp(argv[1], "json") == 0)
		sts = emit_json(t, NULL, &out);
	else if (strcmp(argv[1], "svg") == 0)
		sts = emit_svg(t, &o, &out);
	else
		sts = emit_folded(t, &out);
	if (sts < 0 || fwrite(out.data, 1, out.len, stdout) != out.len)
		return 1;
	membuf_free(&out);
	flame_tree_free(t);
	return 0;
}
