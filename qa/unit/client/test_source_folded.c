/*
 * test_source_folded.c - the folded-stacks reader: what it hands over for
 * good lines, and that a malformed line stops it with the line number.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "source/source.h"
#include "lib/hash.h"

struct seen {
	int		n;
	char		process[8][64], stack[8][128];
	uint64_t	count[8], value[8];
};

static int
collect(void *arg, const struct stack_sample *s)
{
	struct seen	*v = arg;

	if (v->n < 8) {
		snprintf(v->process[v->n], sizeof(v->process[0]), "%s", s->process);
		snprintf(v->stack[v->n], sizeof(v->stack[0]), "%s", s->stack);
		v->count[v->n] = s->count;
		v->value[v->n] = s->value_us;
	}
	CHECK(s->thread == NULL);
	CHECK_STR(s->host, "label");
	v->n++;
	return 0;
}

/* Write text to a temp file, read it back; returns the reader's status. */
static int
read_text(const char *text, size_t len, unsigned freq, struct seen *v, char *err, size_t errlen)
{
	char	path[] = "/tmp/test_folded.XXXXXX";
	int	fd = mkstemp(path), sts;

	CHECK(fd >= 0);
	CHECK(write(fd, text, len) == (ssize_t)len);
	close(fd);
	memset(v, 0, sizeof(*v));
	err[0] = '\0';
	sts = source_folded_read(path, "label", freq, collect, v, err, errlen);
	if (sts < 0) {
		/* the message names the file: strip it for the checks */
		char	*colon = strstr(err, path);

		if (colon != NULL)
			memmove(err, colon + strlen(path), strlen(colon + strlen(path)) + 1);
	}
	unlink(path);
	return sts;
}

#define READ(text, v, err) read_text(text, sizeof(text) - 1, 99, v, err, sizeof(err))

static void
test_good(void)
{
	struct seen	v;
	char		err[256];

	CHECK_INT(READ("java;[t] main;a;b 3\n\n"
		       "nginx 7\r\n"
		       "Total;[p] bash;[t] bash;main 1\n"
		       "Total;x 2\n"
		       "a b;c d 4", &v, err), 0);
	CHECK_INT(v.n, 5);
	CHECK_STR(v.process[0], "java");
	CHECK_STR(v.stack[0], "[t] main;a;b");
	CHECK_INT(v.count[0], 3);
	CHECK_INT(v.value[0], 30303);		/* 3 * 10^6 / 99, rounded */
	CHECK_STR(v.process[1], "nginx");	/* CRLF and blank line tolerated */
	CHECK_STR(v.stack[1], "");
	CHECK_INT(v.value[1], 70707);
	CHECK_STR(v.process[2], "bash");	/* our own host view, read back */
	CHECK_STR(v.stack[2], "[t] bash;main");
	CHECK_STR(v.process[3], "Total");	/* a process really named Total */
	CHECK_STR(v.stack[3], "x");
	CHECK_STR(v.process[4], "a b");		/* the count follows the last space */
	CHECK_STR(v.stack[4], "c d");
	/* DeepFlow's own form types the process frame: the name is the process */
	CHECK_INT(READ("[p] svc;[t] w0;main 3\n", &v, err), 0);
	CHECK_STR(v.process[0], "svc");
	CHECK_STR(v.stack[0], "[t] w0;main");
	CHECK_INT(READ("[p] ;x 5\n", &v, err), -1);
	CHECK_STR(err, ":1: malformed folded line: empty process name after \"[p] \"");
}

/* The reader takes the file a block (1 MiB) at a time: a line of 3 MiB,
 * and lines that straddle blocks, come whole, with their line numbers. */
static void
test_long_lines(void)
{
	size_t		len = 3 << 20, at = 0, i;
	char		*text = malloc(len + 4096), err[256];
	struct seen	v;

	CHECK(text != NULL);
	if (text == NULL)
		return;
	text[at++] = 'p';
	while (at < len)	/* one stack of 3 MiB of frames */
		at += (size_t)sprintf(text + at, ";f%zu", at);
	at += (size_t)sprintf(text + at, " 9\n");
	for (i = 0; i < 5; i++)
		at += (size_t)sprintf(text + at, "q;g%zu %zu\n", i, i + 1);
	at += (size_t)sprintf(text + at, "q;bad\n");
	CHECK_INT(read_text(text, at, 99, &v, err, sizeof(err)), -1);
	CHECK_INT(v.n, 6);
	CHECK_STR(v.process[0], "p");
	CHECK_INT(v.count[0], 9);
	CHECK_STR(v.stack[5], "g4");
	CHECK_INT(v.count[5], 5);
	CHECK_STR(err, ":7: malformed folded line: expected \"frame;frame;... count\"");
	free(text);
}

static void
test_frequency(void)
{
	struct seen	v;
	char		err[256];

	CHECK_INT(read_text("p;f 5\n", 6, 1000, &v, err, sizeof(err)), 0);
	CHECK_INT(v.value[0], 5000);
	CHECK_INT(read_text("p;f 18446744073709\n", 19, 99, &v, err, sizeof(err)), 0);
	CHECK_INT(v.value[0], 186330748219282828ULL);	/* no overflow on the way */
}

static void
test_malformed(void)
{
	struct seen	v;
	char		err[256];

	CHECK_INT(READ("a;b 1\nno count here\n", &v, err), -1);
	CHECK_STR(err, ":2: malformed folded line: count is not a non-negative integer");
	CHECK_INT(READ("a;b 1\n\na;b 1\nnospace\n", &v, err), -1);
	CHECK_STR(err, ":4: malformed folded line: expected \"frame;frame;... count\"");
	CHECK_INT(READ("a;b -3\n", &v, err), -1);
	CHECK_STR(err, ":1: malformed folded line: count is not a non-negative integer");
	CHECK_INT(READ("a;b 99999999999999999999999\n", &v, err), -1);
	CHECK(strstr(err, ":1:") != NULL);
	CHECK_INT(READ(" 5\n", &v, err), -1);
	CHECK_STR(err, ":1: malformed folded line: no process frame before the count");
	CHECK_INT(READ(";a 5\n", &v, err), -1);
	CHECK_INT(READ("Total;[p] ;x 5\n", &v, err), -1);
	CHECK_STR(err, ":1: malformed folded line: empty process name after \"[p] \"");
	CHECK_INT(READ("a;b\0c 5\n", &v, err), -1);
	CHECK_STR(err, ":1: malformed folded line: NUL byte in line");
	CHECK_INT(READ("a;b 1\na;b 2.5\n", &v, err), -1);
	CHECK_STR(err, ":2: malformed folded line: count is not a non-negative integer");
}

/* Each sample's stack comes split too: its non-empty frames, each with
 * its hash, over many blocks. */
struct split_check {
	int	n, bad;
};

static int
check_split(void *arg, const struct stack_sample *s)
{
	struct split_check	*c = arg;
	const char		*f = s->stack, *end = f + strlen(f), *semi;
	uint32_t		i = 0;

	c->n++;
	if (s->frames == NULL)
		return c->bad++, 0;
	for (; f <= end; f = semi + 1) {
		size_t	len;

		if ((semi = memchr(f, ';', (size_t)(end - f))) == NULL)
			semi = end;
		if ((len = (size_t)(semi - f)) == 0)
			continue;
		if (i >= s->frames->n || s->frames->lens[i] != len ||
		    memcmp(s->frames->names[i], f, len) != 0 ||
		    s->frames->hashes[i] != hash_bytes(f, len)) {
			c->bad++;
			return 0;
		}
		i++;
	}
	c->bad += i != s->frames->n;
	return 0;
}

static void
test_frames(void)
{
	size_t			len = 3 << 20, at = 0, lines = 0;
	char			*text = malloc(len + 256), path[] = "/tmp/test_folded.XXXXXX";
	char			err[256];
	struct split_check	c = { 0, 0 };
	int			fd;

	CHECK(text != NULL);
	if (text == NULL)
		return;
	while (at < len) {	/* empty frames among them */
		at += (size_t)sprintf(text + at, "p%zu;alpha;;beta;f%zu;;%s %zu\n", lines % 7,
				      lines % 1000, lines % 2 ? "x" : "", lines % 5 + 1);
		lines++;
	}
	CHECK((fd = mkstemp(path)) >= 0);
	CHECK(write(fd, text, at) == (ssize_t)at);
	close(fd);
	CHECK_INT(source_folded_read(path, "label", 99, check_split, &c, err, sizeof(err)), 0);
	CHECK_INT(c.n, lines);
	CHECK_INT(c.bad, 0);
	unlink(path);
	free(text);
}

/* A profile that fails stops the reader: its line named, nothing after. */
static int
fail_at_3000(void *arg, const struct stack_sample *s)
{
	int	*n = arg;

	(void)s;
	return ++*n == 3000 ? -ENOMEM : 0;
}

static void
test_adder_fails(void)
{
	size_t	len = 4 << 20, at = 0;
	char	*text = malloc(len + 64), path[] = "/tmp/test_folded.XXXXXX", err[256];
	int	fd, n = 0;

	CHECK(text != NULL);
	if (text == NULL)
		return;
	while (at < len)
		at += (size_t)sprintf(text + at, "p;f;g %zu\n", at % 9 + 1);
	CHECK((fd = mkstemp(path)) >= 0);
	CHECK(write(fd, text, at) == (ssize_t)at);
	close(fd);
	CHECK_INT(source_folded_read(path, "label", 99, fail_at_3000, &n, err, sizeof(err)), -1);
	CHECK_INT(n, 3000);
	CHECK(strstr(err, ":3000: Cannot allocate memory") != NULL);
	unlink(path);
	free(text);
}

static void
test_missing_file(void)
{
	struct seen	v = { 0 };
	char		err[256];

	CHECK_INT(source_folded_read("/nonexistent/x.folded", "l", 99, collect, &v,
				     err, sizeof(err)), -1);
	CHECK_STR(err, "cannot open /nonexistent/x.folded: No such file or directory");
	CHECK_INT(v.n, 0);
}

int
main(void)
{
	test_good();
	test_frames();
	test_adder_fails();
	test_long_lines();
	test_frequency();
	test_malformed();
	test_missing_file();
	return unit_report("test_source_folded");
}
