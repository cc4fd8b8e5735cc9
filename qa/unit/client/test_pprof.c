/*
 * test_pprof.c - pmflame's pprof output, inflated with zlib and unpacked
 * with the message code generated from pprof.proto: sample types from
 * the event, the process/thread layers as labels and the rest as
 * locations leaf first, exact totals (per sample, per function, past
 * 2^53), times and period, hostile names, empty profiles, and the same
 * bytes for the same tree.  (qa/220 reads the same files with npm's
 * pprof-format, an independent decoder.)
 */
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>
#include "unit.h"
#include "export_input.h"
#include "pprof.pb-c.h"

static Pprof__Profile *
decode(const struct membuf *gz)
{
	z_stream	z = { 0 };
	size_t		cap = 1 << 16, len = 0;
	unsigned char	*raw = malloc(cap);
	Pprof__Profile	*m = NULL;
	int		sts = Z_OK;

	if (raw == NULL || inflateInit2(&z, 15 + 16) != Z_OK)	/* gzip only */
		goto out;
	z.next_in = (unsigned char *)gz->data;
	z.avail_in = (uInt)gz->len;
	while (sts == Z_OK) {
		if (len == cap && (raw = realloc(raw, cap *= 2)) == NULL)
			break;
		z.next_out = raw + len;
		z.avail_out = (uInt)(cap - len);
		sts = inflate(&z, Z_FINISH);
		len = cap - z.avail_out;
		if (sts == Z_BUF_ERROR && z.avail_out == 0)
			sts = Z_OK;
	}
	inflateEnd(&z);
	if (sts == Z_STREAM_END && z.avail_in == 0)
		m = pprof__profile__unpack(NULL, len, raw);
out:
	free(raw);
	return m;
}

static Pprof__Profile *
pprof_of(const char *folded, const char *name, uint32_t pid, const char *event)
{
	struct membuf	out;
	Pprof__Profile	*m = NULL;

	if (render_export(emit_pprof, folded, name, pid, event, &out) == 0)
		m = decode(&out);
	membuf_free(&out);
	return m;
}

static const char *
str(const Pprof__Profile *m, int64_t i)
{
	return i >= 0 && (size_t)i < m->n_string_table ? m->string_table[i] : "(bad index)";
}

static const Pprof__Function *
function_at(const Pprof__Profile *m, uint64_t location_id)
{
	size_t	i, j;

	for (i = 0; i < m->n_location; i++)
		if (m->location[i]->id == location_id && m->location[i]->n_line == 1)
			for (j = 0; j < m->n_function; j++)
				if (m->function[j]->id == m->location[i]->line[0]->function_id)
					return m->function[j];
	return NULL;
}

/* The file of the Mapping of a location ("" for none). */
static const char *
mapping_file(const Pprof__Profile *m, uint64_t location_id)
{
	size_t	i, j;

	for (i = 0; i < m->n_location; i++)
		if (m->location[i]->id == location_id)
			for (j = 0; j < m->n_mapping; j++)
				if (m->mapping[j]->id == m->location[i]->mapping_id)
					return str(m, m->mapping[j]->filename);
	return "";
}

static const char *
label(const Pprof__Profile *m, const Pprof__Sample *s, const char *key)
{
	static char	num[32];
	size_t		i;

	for (i = 0; i < s->n_label; i++)
		if (strcmp(str(m, s->label[i]->key), key) == 0) {
			if (s->label[i]->str)
				return str(m, s->label[i]->str);
			snprintf(num, sizeof(num), "%lld", (long long)s->label[i]->num);
			return num;
		}
	return "-";
}

/* "process|thread|root;...;leaf|v0,v1" for sample i; a frame outside the
 * program (the first Mapping) is "name@file" of its Mapping. */
static const char *
sample_text(const Pprof__Profile *m, size_t i)
{
	static char		text[1024];
	const Pprof__Sample	*s = m->sample[i];
	size_t			k, n;

	n = (size_t)snprintf(text, sizeof(text), "%s|%s|", label(m, s, "process"),
			     label(m, s, "thread"));
	for (k = s->n_location_id; k-- > 0 && n < sizeof(text); ) {
		const Pprof__Function *f = function_at(m, s->location_id[k]);
		const char *file = mapping_file(m, s->location_id[k]);
		bool program = m->n_mapping > 0 && m->mapping[0]->id == 1 &&
			       strcmp(file, str(m, m->mapping[0]->filename)) == 0;

		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s%s%s",
				      f ? str(m, f->name) : "(no function)", program ? "" : "@",
				      program ? "" : file, k ? ";" : "");
	}
	n += (size_t)snprintf(text + n, sizeof(text) - n, "|");
	for (k = 0; k < s->n_value && n < sizeof(text); k++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%lld", k ? "," : "",
				      (long long)s->value[k]);
	return text;
}

static void
check_samples(const Pprof__Profile *m, const char *const *want, size_t n)
{
	size_t	i;

	CHECK_INT(m->n_sample, n);
	for (i = 0; i < n && i < m->n_sample; i++)
		CHECK_STR(sample_text(m, i), want[i]);
}

static void
test_process_view(void)
{
	static const char *const want[] = {
		"proc|main|main;baz|1,10000000",
		"proc|main|main;foo|2,20000000",
		"proc|main|main;foo;bar|3,30000000",
		"proc|worker|start;foo;foo;foo|4,40000000",
	};
	Pprof__Profile	*m = pprof_of("proc;[t] main;main;foo;bar 3\nproc;[t] main;main;foo 2\n"
				      "proc;[t] main;main;baz 1\nproc;[t] worker;start;foo;foo;foo 4\n",
				      "proc", 0, NULL);

	CHECK(m != NULL);
	if (m == NULL)
		return;
	CHECK_STR(str(m, 0), "");
	CHECK_INT(m->n_sample_type, 2);
	CHECK_STR(str(m, m->sample_type[0]->type), "samples");
	CHECK_STR(str(m, m->sample_type[0]->unit), "count");
	CHECK_STR(str(m, m->sample_type[1]->type), "cpu");
	CHECK_STR(str(m, m->sample_type[1]->unit), "nanoseconds");
	CHECK_STR(str(m, m->default_sample_type), "cpu");
	CHECK_STR(str(m, m->period_type->type), "cpu");
	CHECK_INT(m->period, 10000000);		/* 100 Hz */
	CHECK_INT(m->time_nanos, 1767322800250000000LL);
	CHECK_INT(m->duration_nanos, 60250000000LL);
	CHECK_INT(m->n_comment, 0);
	check_samples(m, want, 4);
	/* pprof takes the first Mapping for the program: the process's name */
	CHECK(m->n_mapping >= 1 && m->mapping[0]->id == 1);
	if (m->n_mapping >= 1)
		CHECK_STR(str(m, m->mapping[0]->filename), "proc");
	CHECK_INT(m->n_function, 5);		/* main baz foo bar start: no layers */
	CHECK_INT(m->n_location, 5);
	pprof__profile__free_unpacked(m, NULL);
}

/* "Total" is dropped; "[p] x" gives process=x. */
static void
test_host_view(void)
{
	static const char *const want[] = {
		/* the kind is the Mapping, not a prefix of the name */
		"nginx|nginx|do_syscall_64@[kernel.kallsyms]|2,20000000",
		"nginx|worker|write@[shared libraries];ksys_write@[kernel.kallsyms]|3,30000000",
		"redis|redis|[unknown] 0x0000000000001234@[unresolved]|1,10000000",
	};
	Pprof__Profile	*m = pprof_of(
		"Total;[p] nginx;[t] nginx;[k] do_syscall_64 2\n"
		"Total;[p] nginx;[t] worker;[l] write;[k] ksys_write 3\n"
		"Total;[p] redis;[t] redis;[unknown] 0x0000000000001234 1\n", "Total", 0, NULL);
	size_t		i;

	CHECK(m != NULL);
	if (m == NULL)
		return;
	check_samples(m, want, 3);
	/* two processes: no one program */
	if (m->n_mapping >= 1)
		CHECK_STR(str(m, m->mapping[0]->filename), "[application]");
	for (i = 0; i < m->n_function; i++)
		CHECK(strcmp(str(m, m->function[i]->name), "Total") != 0);
	pprof__profile__free_unpacked(m, NULL);
}

/* Layers only where they belong: a "[t]"/"[p]" frame below the thread
 * stays a frame; a stack without a thread has no thread label; self time
 * on the process itself is a sample without locations.  pid labels come
 * from --multi-instance profiles. */
static void
test_layers_and_pid(void)
{
	static const char *const want[] = {
		"proc|-||2,20000000",
		"proc|main|[t] inner;[p] deep|1,10000000",
		"proc|-|f|1,10000000",
	};
	Pprof__Profile	*m = pprof_of("proc;[t] main;[t] inner;[p] deep 1\nproc;f 1\nproc 2\n",
				      "proc", 4242, NULL);
	size_t		i;

	CHECK(m != NULL);
	if (m == NULL)
		return;
	check_samples(m, want, 3);
	for (i = 0; i < m->n_sample; i++)
		CHECK_STR(label(m, m->sample[i], "pid"), "4242");
	pprof__profile__free_unpacked(m, NULL);
}

/* Every profile string is data: cleaned to valid UTF-8, never cut. */
static void
test_hostile_names(void)
{
	static const char *const want[] = {
		"p\"<script>|t\xef\xbf\xbd|a\"b\\c\xef\xbf\xbd\xef\xbf\xbd;</script>&amp;|1,10000000",
	};
	Pprof__Profile	*m = pprof_of("p\"<script>;[t] t\x1b;a\"b\\c\x01\xff;</script>&amp; 1\n",
				      "p", 0, NULL);

	CHECK(m != NULL);
	if (m == NULL)
		return;
	check_samples(m, want, 1);
	pprof__profile__free_unpacked(m, NULL);
}

/* Not a time event: one sample type, samples/count, period 1. */
static void
test_counted_event(void)
{
	static const char *const want[] = { "p|-|f|3" };
	Pprof__Profile	*m = pprof_of("p;f 3\n", "p", 0, "page-fault");

	CHECK(m != NULL);
	if (m == NULL)
		return;
	CHECK_INT(m->n_sample_type, 1);
	CHECK_STR(str(m, m->period_type->type), "samples");
	CHECK_INT(m->period, 1);
	check_samples(m, want, 1);
	pprof__profile__free_unpacked(m, NULL);
	m = pprof_of("p;f 3\n", "p", 0, "off-cpu");
	CHECK(m != NULL);
	if (m != NULL)
		CHECK_STR(str(m, m->sample_type[1]->type), "off_cpu");
	pprof__profile__free_unpacked(m, NULL);
}

static void
test_comment_and_empty(void)
{
	struct profile		p = profile_from("", "idle", 0);
	struct emit_options	o;
	struct membuf		out;
	Pprof__Profile		*m;

	emit_options_default(&o);
	o.subtitle = "archive web01, 2026-01-02 03:00:00 UTC to 03:01:00 UTC";
	membuf_init(&out);
	CHECK_INT(emit_pprof(&p, &o, &out), 0);
	m = decode(&out);
	CHECK(m != NULL);
	if (m != NULL) {
		CHECK_INT(m->n_sample, 0);
		CHECK_INT(m->n_sample_type, 2);
		CHECK_INT(m->period, 0);
		CHECK_INT(m->n_comment, 1);
		if (m->n_comment == 1)
			CHECK_STR(str(m, m->comment[0]), o.subtitle);
	}
	pprof__profile__free_unpacked(m, NULL);
	membuf_free(&out);
	flame_tree_free(p.tree);
}

/* gzip with no time in its header: the same tree, the same bytes. */
static void
test_deterministic(void)
{
	const char	*in = "Total;[p] a;[t] a;x;y 5\nTotal;[p] b;[t] b;[k] z 7\n";
	struct membuf	a, b;

	CHECK_INT(render_export(emit_pprof, in, "Total", 0, NULL, &a), 0);
	CHECK_INT(render_export(emit_pprof, in, "Total", 0, NULL, &b), 0);
	CHECK(a.len == b.len && a.len > 10 && memcmp(a.data, b.data, a.len) == 0);
	CHECK(a.len > 10 && (unsigned char)a.data[0] == 0x1f && (unsigned char)a.data[1] == 0x8b);
	CHECK(a.len > 10 && memcmp(a.data + 4, "\0\0\0\0", 4) == 0);	/* MTIME */
	membuf_free(&a);
	membuf_free(&b);
}

/* Exact past 2^53; a value past int64 nanoseconds is refused, not wrapped. */
static void
test_big_values(void)
{
	struct flame_tree	*t = flame_tree_new();
	const char		*path[] = { "p", "f" };
	struct profile		p = { .host = (char *)"h", .name = (char *)"p", .tree = t };
	struct membuf		out;
	Pprof__Profile		*m;

	membuf_init(&out);
	CHECK_INT(flame_tree_add(t, path, 2, 9007199254740993ULL, 9007199254740ULL), 0);
	CHECK_INT(flame_tree_finish(t), 0);
	CHECK_INT(emit_pprof(&p, NULL, &out), 0);
	m = decode(&out);
	CHECK(m != NULL && m->n_sample == 1);
	if (m != NULL && m->n_sample == 1) {
		CHECK(m->sample[0]->value[0] == 9007199254740993LL);
		CHECK(m->sample[0]->value[1] == 9007199254740000LL);
	}
	pprof__profile__free_unpacked(m, NULL);
	flame_tree_free(t);
	membuf_reset(&out);
	t = p.tree = flame_tree_new();
	CHECK_INT(flame_tree_add(t, path, 2, 1, (uint64_t)INT64_MAX / 1000 + 1), 0);
	CHECK_INT(flame_tree_finish(t), 0);
	CHECK_INT(emit_pprof(&p, NULL, &out), -ERANGE);
	membuf_free(&out);
	flame_tree_free(t);
}

/* A few thousand random stacks: samples sum to what was added, and each
 * function's samples (counted once per stack that holds it) equal the
 * tree's function totals. */
static void
test_random_totals(void)
{
	struct membuf	in, out;
	Pprof__Profile	*m = NULL;
	uint64_t	added = 0, sum = 0, ns = 0, per_fn[8] = { 0 }, want[8] = { 0 };
	unsigned	seed = 42;
	size_t		i, k;

	membuf_init(&in);
	for (i = 0; i < 3000; i++) {
		unsigned depth = 1 + rand_r(&seed) % 12, count = 1 + rand_r(&seed) % 50;

		membuf_puts(&in, rand_r(&seed) % 2 ? "Total;[p] a;[t] a" : "Total;[p] b;[t] b");
		for (k = 0; k < depth; k++)
			membuf_printf(&in, ";f%u", rand_r(&seed) % 8);
		membuf_printf(&in, " %u\n", count);
		added += count;
	}
	if (render_export(emit_pprof, in.data, "Total", 0, NULL, &out) == 0)
		m = decode(&out);
	CHECK(m != NULL);
	for (i = 0; m != NULL && i < m->n_sample; i++) {
		const Pprof__Sample *s = m->sample[i];
		unsigned seen = 0;

		sum += (uint64_t)s->value[0];
		ns += (uint64_t)s->value[1];
		for (k = 0; k < s->n_location_id; k++) {
			const Pprof__Function *f = function_at(m, s->location_id[k]);
			unsigned fn = f ? (unsigned)atoi(str(m, f->name) + 1) : 0;

			if (f && !(seen & (1u << fn)))
				per_fn[fn] += (uint64_t)s->value[0];
			if (f)
				seen |= 1u << fn;
		}
	}
	CHECK(sum == added);
	CHECK(ns == added * US_PER_SAMPLE * 1000);
	{
		struct flame_tree *t = tree_from(in.data);

		for (i = 0; t && i < flame_tree_nfunctions(t); i++) {
			const struct flame_function *f = flame_tree_function(t, i);

			if (f->name[0] == 'f')
				want[atoi(f->name + 1)] += f->total_samples;
		}
		flame_tree_free(t);
	}
	for (i = 0; i < 8; i++)
		CHECK(per_fn[i] == want[i] && want[i] > 0);
	pprof__profile__free_unpacked(m, NULL);
	membuf_free(&in);
	membuf_free(&out);
}

/* A Python frame "qualname (file:line)" is Function qualname in file at
 * Line line, one Location per line; "qualname (file)" has line 0; a C++
 * name with a " (" is no Python frame. */
static void
test_python_frames(void)
{
	Pprof__Profile	*m = pprof_of("py;[t] main;_start;serve (/a/app.py:42);parse (/a/app.py:27) 3\n"
				      "py;[t] main;_start;serve (/a/app.py:43);f<void ()>::g() 1\n"
				      "py;[t] main;_start;<module> (/a/app.py) 2\n", "py", 0, NULL);
	size_t		i, j, seen = 0;

	CHECK(m != NULL);
	if (m == NULL)
		return;
	for (i = 0; i < m->n_location; i++) {
		const Pprof__Line *ln = m->location[i]->line[0];
		const Pprof__Function *f = NULL;
		char what[256];

		for (j = 0; j < m->n_function; j++)
			if (m->function[j]->id == ln->function_id)
				f = m->function[j];
		CHECK(f != NULL);
		if (f == NULL)
			continue;
		snprintf(what, sizeof(what), "%s|%s|%lld", str(m, f->name), str(m, f->filename),
			 (long long)ln->line);
		seen += strcmp(what, "serve|/a/app.py|42") == 0 || strcmp(what, "serve|/a/app.py|43") == 0 ||
			strcmp(what, "parse|/a/app.py|27") == 0 || strcmp(what, "<module>|/a/app.py|0") == 0 ||
			strcmp(what, "f<void ()>::g()||0") == 0 || strcmp(what, "_start||0") == 0;
	}
	CHECK_INT(m->n_location, 6);
	CHECK_INT(seen, 6);
	pprof__profile__free_unpacked(m, NULL);
}

int
main(void)
{
	test_python_frames();
	test_process_view();
	test_host_view();
	test_layers_and_pid();
	test_hostile_names();
	test_counted_event();
	test_comment_and_empty();
	test_deterministic();
	test_big_values();
	test_random_totals();
	return unit_report("test_pprof");
}
