/*
 * emit_json.c - DeepFlow's ProfileTracing result, with its envelope and
 * field order exactly:
 *
 *   {"OPT_STATUS":"SUCCESS","DESCRIPTION":"","result":{"functions":[...],
 *    "function_types":[...],"function_values":{"columns":["self_value",
 *    "total_value"],"values":[[s,t],...]},"node_values":{"columns":
 *    ["function_id","parent_node_id","self_value","total_value"],
 *    "values":[[f,p,s,t],...]}},"debug":null}
 *
 * A differential tree (--baseline) adds two columns to each table,
 * "baseline_self_value" and "baseline_total_value": the same microseconds
 * of the profile compared against; readers that look columns up by name
 * read the rest as before.
 *
 * Values are microseconds.  The text is written straight into out: the
 * node table of a 3 M-node tree is 70 MB, and a DOM (cJSON keeps every
 * number as a double item, ~64 bytes each, and prints a copy) would
 * hold it several times over.  Names go through json_string (cleaned,
 * then '"' and '\' escaped: what cJSON wrote for them).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "emit.h"
#include "emit_export.h"
#include "json_text_priv.h"

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static unsigned
digits_of(uint64_t v)
{
	unsigned	n = 1;

	for (; v >= 10000; v /= 10000)
		n += 4;
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* v in decimal at p, written from its last digit back, two a step: the
 * node table has 13 M numbers, and printf, or a copy of the digits with
 * a call per number, would dominate. */
static char *
put_u64(char *p, uint64_t v)
{
	char	*end, *d;

	if (v < 10) {		/* most self values are 0 */
		*p = (char)('0' + v);
		return p + 1;
	}
	end = d = p + digits_of(v);
	while (v >= 100) {
		d -= 2;
		memcpy(d, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(d - 2, digit_pairs + 2 * v, 2);
	else
		d[-1] = (char)('0' + v);
	return end;
}

#define ROW_MAX		(6 * 21 + 8)	/* sep, [, six numbers and commas, ] */

/* Append sep then "[c0,c1,...]"; a parent of -1 (the root's) comes in as
 * UINT64_MAX and is written as -1. */
static void
put_row(struct membuf *b, const char *sep, const uint64_t *cols, int ncols)
{
	char	*row = membuf_room(b, ROW_MAX), *p = row;
	int	i;

	if (row == NULL)
		return;
	if (*sep)
		*p++ = *sep;
	*p++ = '[';
	for (i = 0; i < ncols; i++) {
		if (i)
			*p++ = ',';
		if (cols[i] == UINT64_MAX) {
			memcpy(p, "-1", 2);
			p += 2;
		} else
			p = put_u64(p, cols[i]);
	}
	*p++ = ']';
	membuf_wrote(b, (size_t)(p - row));
}

static void
function_lists(const struct flame_tree *t, struct membuf *out)
{
	size_t	i, n = flame_tree_nfunctions(t);

	membuf_puts(out, "\"functions\":[");
	for (i = 0; i < n; i++) {
		membuf_puts(out, i ? "," : "");
		json_string(out, flame_tree_function(t, i)->name);
	}
	membuf_puts(out, "],\"function_types\":[");
	for (i = 0; i < n; i++) {
		char	type[] = { ',', '"', flame_tree_function(t, i)->type, '"' };

		membuf_append(out, i ? type : type + 1, i ? 4 : 3);
	}
	membuf_puts(out, "],");
}

/* A differential tree's baseline columns follow DeepFlow's own. */
#define BASE_COLUMNS	",\"baseline_self_value\",\"baseline_total_value\""

static void
function_values(const struct flame_tree *t, struct membuf *out)
{
	size_t	i, n = flame_tree_nfunctions(t);
	int	diff = flame_tree_has_baseline(t);

	membuf_puts(out, "\"function_values\":{\"columns\":[\"self_value\",\"total_value\"");
	membuf_puts(out, diff ? BASE_COLUMNS "],\"values\":[" : "],\"values\":[");
	for (i = 0; i < n; i++) {
		const struct flame_function *f = flame_tree_function(t, i);
		uint64_t cols[4] = { f->self_us, f->total_us, f->base_self_us, f->base_total_us };

		put_row(out, i ? "," : "", cols, diff ? 4 : 2);
	}
	membuf_puts(out, "]},");
}

/* Node rows [from, to), each after a comma but the table's first. */
static int
node_rows(const struct flame_tree *t, size_t from, size_t to, struct membuf *out)
{
	struct flame_walk	*w = flame_walk_new(t);
	const struct flame_node	*x;
	int			diff = flame_tree_has_baseline(t);

	if (w == NULL)
		return -ENOMEM;
	flame_walk_part(w, from, to);
	while ((x = flame_walk_next(w)) != NULL && !out->failed) {
		uint64_t cols[6] = {
			x->function, x->parent < 0 ? UINT64_MAX : (uint64_t)x->parent,
			x->self_us, x->total_us, x->base_self_us, x->base_total_us
		};

		put_row(out, x->id ? "," : "", cols, diff ? 6 : 4);
	}
	flame_walk_free(w);
	return 0;
}

struct rows_job {
	const struct flame_tree	*t;
	size_t			from, to;
	struct membuf		out;
	int			sts;
};

static void *
rows_job_run(void *arg)
{
	struct rows_job	*j = arg;

	/* room for rows of about 22 bytes, so the buffer is not copied as
	 * it doubles */
	membuf_room(&j->out, (j->to - j->from) * 24);
	j->sts = node_rows(j->t, j->from, j->to, &j->out);
	return NULL;
}

/* A big tree's second half of rows is written on a thread, into memory,
 * while this thread writes the first half: the node table is most of a
 * big JSON's time (a 3 M-node table: 70 MB, 0.1 s). */

static int
node_values(const struct flame_tree *t, struct membuf *out)
{
	size_t		n = flame_tree_nnodes(t);
	struct rows_job	second = { t, n / 2, n, { 0 }, 0 };
	pthread_t	thread;
	bool		split = n >= FLAME_WALK_SPLIT &&
				pthread_create(&thread, NULL, rows_job_run, &second) == 0;
	int		sts;

	membuf_puts(out, "\"node_values\":{\"columns\":[\"function_id\",\"parent_node_id\","
		    "\"self_value\",\"total_value\"");
	membuf_puts(out, flame_tree_has_baseline(t) ? BASE_COLUMNS "],\"values\":[" :
		    "],\"values\":[");
	sts = node_rows(t, 0, split ? n / 2 : n, out);
	if (split) {
		pthread_join(thread, NULL);
		if (sts == 0 && (sts = second.sts) == 0 && second.out.failed)
			sts = -ENOMEM;
		if (sts == 0)
			membuf_append(out, second.out.data, second.out.len);
		membuf_free(&second.out);
	}
	membuf_puts(out, "]}");
	return sts;
}

int
emit_json(const struct flame_tree *t, const char *event, struct membuf *out)
{
	return emit_json_described(t, event, NULL, out);
}

int
emit_json_described(const struct flame_tree *t, const char *event, const char *description,
		    struct membuf *out)
{
	const struct event_measure	*m = event_measure(event ? event : "on-cpu");

	membuf_puts(out, "{\"OPT_STATUS\":\"SUCCESS\",\"DESCRIPTION\":");
	json_string(out, description ? description : "");
	membuf_puts(out, ",\"result\":{");
	function_lists(t, out);
	function_values(t, out);
	if (node_values(t, out) < 0)
		return -ENOMEM;
	/* after DeepFlow's own fields: which profile, and what values count */
	membuf_puts(out, ",\"profile_event_type\":");
	json_string(out, event ? event : "on-cpu");
	membuf_printf(out, ",\"value_unit\":\"%s\"}", m->unit);
	membuf_puts(out, ",\"debug\":null}\n");
	return out->failed ? -ENOMEM : 0;
}
