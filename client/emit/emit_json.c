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

/* Append sep then "[c0,c1,...]". */
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

/* A number's text, kept to be copied where the number recurs. */
struct decimal {
	char		text[24];	/* 16 bytes are copied whatever len */
	unsigned	len;
	uint32_t	of;
};

static void
decimal_set(struct decimal *d, uint32_t v)
{
	d->len = (unsigned)(put_u64(d->text, v) - d->text);
	d->of = v;
}

/* The next number's text: usually a change of the last digit. */
static void
decimal_next(struct decimal *d)
{
	unsigned	i = d->len;

	while (i > 0 && d->text[i - 1] == '9')
		d->text[--i] = '0';
	if (i > 0) {
		d->text[i - 1]++;
	} else {
		memmove(d->text + 1, d->text, d->len++);
		d->text[0] = '1';
	}
	d->of++;
}

static char *
put_decimal(char *p, const struct decimal *d)
{
	memcpy(p, d->text, 16);
	return p + d->len;
}

/*
 * Node rows [from, to), each after a comma but the table's first.  Of a
 * row's four numbers two recur: the function id (thousands of functions
 * in millions of rows) and the parent, the last node written at the
 * depth above.  Those are copied as text (functions from a table; each
 * depth's last node, its id counted up in text), so a row converts only
 * its values.
 */
static int
node_rows(const struct flame_tree *t, size_t from, size_t to, struct membuf *out)
{
	size_t			nf = flame_tree_nfunctions(t), i;
	struct decimal		*fn = malloc((nf + 1) * sizeof(*fn));
	struct decimal		*depth = calloc(flame_tree_max_depth(t) + 1, sizeof(*depth));
	struct decimal		id;
	struct flame_walk	*w = flame_walk_new(t);
	const struct flame_node	*x;
	int			diff = flame_tree_has_baseline(t);

	if (fn == NULL || depth == NULL || w == NULL) {
		free(fn);
		free(depth);
		flame_walk_free(w);
		return -ENOMEM;
	}
	for (i = 0; i < nf; i++)
		decimal_set(&fn[i], (uint32_t)i);
	for (i = 0; i <= flame_tree_max_depth(t); i++)
		depth[i].of = UINT32_MAX;	/* none yet */
	decimal_set(&id, (uint32_t)from);
	flame_walk_part(w, from, to);
	while ((x = flame_walk_next(w)) != NULL && !out->failed) {
		char	*row = membuf_room(out, ROW_MAX), *p = row;

		if (row == NULL)
			break;
		if (x->id)
			*p++ = ',';
		*p++ = '[';
		p = put_decimal(p, &fn[x->function]);
		*p++ = ',';
		if (x->parent < 0) {
			memcpy(p, "-1", 2);
			p += 2;
		} else {
			/* a part's first node: its ancestors are the part before's */
			if (depth[x->depth - 1].of != (uint32_t)x->parent)
				decimal_set(&depth[x->depth - 1], (uint32_t)x->parent);
			p = put_decimal(p, &depth[x->depth - 1]);
		}
		*p++ = ',';
		p = put_u64(p, x->self_us);
		*p++ = ',';
		p = put_u64(p, x->total_us);
		if (diff) {
			*p++ = ',';
			p = put_u64(p, x->base_self_us);
			*p++ = ',';
			p = put_u64(p, x->base_total_us);
		}
		*p++ = ']';
		membuf_wrote(out, (size_t)(p - row));
		depth[x->depth] = id;
		decimal_next(&id);
	}
	free(fn);
	free(depth);
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
