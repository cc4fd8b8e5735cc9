/*
 * control_parse.c - validation of stored control values (see header).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/pmapi.h>
#include "control_parse.h"
#include "stackprof.h"

int
control_parse_uint(const char *text, unsigned lo, unsigned hi, unsigned *out)
{
	const char	*p = text;
	unsigned long	v;
	char		*end;

	if (text == NULL)
		return PM_ERR_CONV;
	while (isspace((unsigned char)*p))
		p++;
	/* strtoul accepts "-5" as a huge number: allow digits only */
	if (!isdigit((unsigned char)*p))
		return PM_ERR_CONV;
	errno = 0;
	v = strtoul(p, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (*end != '\0')
		return PM_ERR_CONV;
	if (errno == ERANGE || v < lo || v > hi)
		return PM_ERR_BADSTORE;
	*out = (unsigned)v;
	return 0;
}

static int
pid_seen(const pid_t *pids, size_t n, pid_t pid)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return 1;
	return 0;
}

/* Parse one comma-separated field into a PID > 0. */
static int
parse_one_pid(const char *field, size_t len, pid_t *pid)
{
	char		buf[32];
	unsigned	v;
	int		sts;

	if (len >= sizeof(buf))
		return PM_ERR_BADSTORE;
	memcpy(buf, field, len);
	buf[len] = '\0';
	if ((sts = control_parse_uint(buf, 1, INT_MAX, &v)) < 0)
		return sts == PM_ERR_CONV ? PM_ERR_BADSTORE : sts;
	*pid = (pid_t)v;
	return 0;
}

int
control_parse_pids(const char *text, pid_t **pids, size_t *n)
{
	pid_t		*out = NULL;
	size_t		count = 0;
	const char	*p = text, *comma;
	int		sts;

	if (text == NULL || strlen(text) > CONTROL_TEXT_MAX)
		return PM_ERR_BADSTORE;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '\0') {
		*pids = NULL;
		*n = 0;
		return 0;
	}
	if ((out = calloc(CONTROL_PIDS_MAX, sizeof(*out))) == NULL)
		return -ENOMEM;
	for (;;) {
		pid_t	pid;
		size_t	len;

		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if ((sts = parse_one_pid(p, len, &pid)) < 0)
			goto fail;
		if (!pid_seen(out, count, pid)) {
			if (count == CONTROL_PIDS_MAX) {
				sts = PM_ERR_BADSTORE;
				goto fail;
			}
			out[count++] = pid;
		}
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	*pids = out;
	*n = count;
	return 0;
fail:
	free(out);
	return sts;
}

/*
 * What glibc's regcomp makes of an ERE grows with repetition, not length:
 * it copies a repeated group once per count of {m,n} and once for '+' (a+
 * is aa*), so "a" and 20 '+' took 776 MB and 2.2 s (issue 17), and
 * fuzz_control_parse found it in seconds.  A back-reference makes regexec
 * backtrack: '(a*)*\1b' against a 4 KB command line of 'a's ran for minutes,
 * and stacked quantifiers ("a*++??") make regcomp's closures slow even when
 * small.  So the text is measured first: an upper bound of the nodes
 * regcomp builds, with counts multiplied as regcomp copies, and none of
 * back-references, a quantifier right after another (undefined in POSIX
 * ERE anyway) or deep nesting.  Counts saturate at REGEX_NODES_MAX + 1.
 */
#define REGEX_NODES_MAX	1000
#define REGEX_DEPTH_MAX	32
#define REGEX_TOO_BIG	(REGEX_NODES_MAX + 1)

static size_t
nodes_add(size_t a, size_t b)
{
	return a + b > REGEX_TOO_BIG ? REGEX_TOO_BIG : a + b;
}

static size_t
nodes_times(size_t a, unsigned long copies)
{
	return copies > REGEX_TOO_BIG || a * copies > REGEX_TOO_BIG ? REGEX_TOO_BIG : a * copies;
}

/* After the bracket expression at p ('['), or NULL when it does not end. */
static const char *
skip_bracket(const char *p)
{
	p += p[1] == '^' ? 2 : 1;
	if (*p == ']')
		p++;			/* a leading ']' is a member */
	while (*p && *p != ']') {
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *q = p + 2;

			while (*q && !(q[0] == p[1] && q[1] == ']'))
				q++;
			if (*q == '\0')
				return NULL;
			p = q + 2;
		} else {
			p++;
		}
	}
	return *p ? p + 1 : NULL;
}

/* The copies regcomp makes for the bound {m}, {m,}, {,n} or {m,n} at p
 * (its largest count + 1), *end after it; 0 when p is no bound. */
static unsigned long
bound_copies(const char *p, const char **end)
{
	unsigned long	m = 0, n;
	char		*e = (char *)p + 1;

	if (isdigit((unsigned char)*e))
		m = strtoul(e, &e, 10);
	n = m;
	if (*e == ',' && isdigit((unsigned char)e[1]))
		n = strtoul(e + 1, &e, 10);
	else if (*e == ',')
		e++;
	if (*e != '}' || e == p + 1)
		return 0;
	*end = e + 1;
	return (m > n ? m : n) + 1;
}

/* The quantifier at *p applied to an atom of *atom nodes: true (and *p on
 * its last character) when *p is one. */
static bool
quantify(const char **p, size_t *atom)
{
	unsigned long	copies;
	const char	*end;

	if (*atom == 0)
		return false;	/* nothing to repeat: regcomp decides */
	if (**p == '*' || **p == '?')
		*atom = nodes_add(*atom, 1);
	else if (**p == '+')
		*atom = nodes_add(nodes_times(*atom, 2), 1);
	else if (**p == '{' && (copies = bound_copies(*p, &end)) != 0) {
		*atom = nodes_add(nodes_times(*atom, copies), 1);
		*p = end - 1;
	} else
		return false;
	return true;
}

/* An upper bound of the nodes regcomp builds for ERE text. */
static size_t
regex_nodes(const char *p)
{
	size_t		sum[REGEX_DEPTH_MAX + 1] = { 0 }, last[REGEX_DEPTH_MAX + 1] = { 0 };
	int		d = 0;
	bool		quantified = false;	/* last[d] has its quantifier */
	const char	*end;

	for (; *p; p++) {
		if (quantify(&p, &last[d])) {
			if (quantified)
				return REGEX_TOO_BIG;
			quantified = true;
			continue;
		}
		quantified = false;
		if (*p == '(') {
			if (++d > REGEX_DEPTH_MAX)
				return REGEX_TOO_BIG;
			sum[d] = last[d] = 0;
		} else if (*p == ')' && d > 0) {
			size_t group = nodes_add(nodes_add(sum[d], last[d]), 1);

			d--;
			sum[d] = nodes_add(sum[d], last[d]);
			last[d] = group;
		} else if (*p == '|') {
			sum[d] = nodes_add(nodes_add(sum[d], last[d]), 1);
			last[d] = 0;
		} else {
			if (*p == '\\' && p[1] >= '1' && p[1] <= '9')
				return REGEX_TOO_BIG;	/* a back-reference */
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '[' && (end = skip_bracket(p)) != NULL)
				p = end - 1;
			sum[d] = nodes_add(sum[d], last[d]);
			last[d] = 1;
		}
	}
	while (d > 0) {		/* an unclosed '(' fails regcomp: count it anyway */
		size_t inner = nodes_add(sum[d], last[d]);

		d--;
		sum[d] = nodes_add(nodes_add(sum[d], last[d]), inner);
		last[d] = 0;
	}
	return nodes_add(sum[0], last[0]);
}

int
control_parse_regex(const char *text, regex_t **re)
{
	regex_t	*r;

	if (text == NULL || strlen(text) > CONTROL_TEXT_MAX ||
	    regex_nodes(text) > REGEX_NODES_MAX)
		return PM_ERR_BADSTORE;
	if (*text == '\0') {
		*re = NULL;
		return 0;
	}
	if ((r = malloc(sizeof(*r))) == NULL)
		return -ENOMEM;
	if (regcomp(r, text, REG_EXTENDED | REG_NOSUB) != 0) {
		free(r);
		return PM_ERR_BADSTORE;
	}
	*re = r;
	return 0;
}

void
control_free_regex(regex_t *re)
{
	if (re != NULL)
		regfree(re);
	free(re);
}

int
control_check_slots(unsigned slots)
{
	if (slots < 1 || slots > SP_HEATMAP_MAX_SLOTS || 1000 % slots != 0)
		return PM_ERR_BADSTORE;
	return 0;
}

void
control_value_release(struct control_value *v)
{
	control_free_regex(v->regex);
	free(v->pids);
	v->regex = NULL;
	v->pids = NULL;
	v->npids = 0;
}
