/*
 * emit_pprof.c - a profile as pprof's profile.proto, gzipped (*.pb.gz),
 * the format of go tool pprof, Pyroscope and Parca.  The message is built
 * as protoc-c's structs (pprof.proto) and packed by libprotobuf-c, through
 * zlib as it is packed.
 *
 * From the tree (docs/design.md, "Formats"):
 *  - one Sample per node with self samples; values [samples, time in ns]
 *    (types samples/count and, for time events, cpu/nanoseconds or
 *    off_cpu/nanoseconds, from the event);
 *  - the process and thread layers are labels, not frames: "java" or
 *    "[p] java" gives process=java, "[t] main" thread=main; a host root
 *    ("Total") is dropped; a profile of one pid (--multi-instance) puts
 *    pid=N on every sample;
 *  - every other distinct frame is one Function and one Location (no
 *    addresses: the name is all the PMDA exports); the kind of a frame is
 *    its Location's Mapping, as in the tools' own profiles, not a prefix:
 *    "[k] schedule" is schedule in [kernel.kallsyms], "[l] read" read in
 *    [shared libraries]; the first Mapping, which pprof takes for the
 *    program, is the process's name (one process) or [application];
 *    "[/path]" and "[unknown] ..." frames keep their names, in
 *    [unresolved];
 *  - a Python frame, "qualname (file:line)" (py_frame.h), is Function
 *    qualname in filename file, at Line line: pmflame --lines gives one
 *    Location per line, which go tool pprof -lines shows and its default
 *    view merges by function;
 *  - time_nanos and duration_nanos from the profile's range; period the
 *    mean time per sample (10^9 / Hz when one frequency was in force).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "emit_export.h"
#include "frame_kind.h"
#include "common/py_frame.h"
#include "pprof.pb-c.h"
#include "lib/array.h"

enum layer { LAYER_HOST, LAYER_PROCESS, LAYER_THREAD, LAYER_FRAME };

/* One Mapping per kind of frame (ids are index + 1; the first is the
 * program's). */
enum frame_map { MAP_PROGRAM, MAP_KERNEL, MAP_LIBRARY, MAP_CUDA, MAP_UNRESOLVED, NMAPS };
static const char map_type[NMAPS] = { 'A', 'K', 'L', 'C', '?' };

/* pprof's string table: cleaned strings back to back; [0] is "". */
struct strings {
	struct membuf	text;
	size_t		*at;		/* offset of each string in text */
	char		**ptrs;		/* filled once text stops moving */
	size_t		n, cap;
};

/* The process and thread labels in force at one depth of the walk. */
struct path_labels {
	Pprof__Label	*process, *thread;
};

/* Everything one profile's message points into, allocated in count_nodes'
 * sizes so that no pointer moves while it is built. */
struct pprof_build {
	const struct flame_tree	*t;
	const struct profile	*p;
	const char		*time_type;	/* NULL: samples only */
	struct strings		str;
	int64_t			*name_str;	/* per function: its name's string, 0 = none yet */
	int64_t			*label_str;	/* per function: name without "[p] "/"[t] " */
	uint8_t			*layer;		/* per depth of the current path */
	size_t			*nframes;	/* per depth: frames from the root to there */
	uint64_t		*loc;		/* per depth: location id there, 0 = a layer */
	struct path_labels	*labels_at;	/* per depth */
	size_t			nsamples, nlocids, nlabels, nused;
	Pprof__Sample		*samples, **sample_ptrs;
	uint64_t		*locids;
	int64_t			*values;
	Pprof__Label		*labels, **sample_labels, pid_label;
	Pprof__Function		*functions, **function_ptrs;
	Pprof__Location		*locations, **location_ptrs;
	Pprof__Line		*lines, **line_ptrs;
	Pprof__ValueType	types[2], *type_ptrs[2], period_type;
	Pprof__Mapping		mappings[NMAPS], *mapping_ptrs[NMAPS];
	int64_t			process;	/* function of the only process, -1 none, -2 several */
	int64_t			comment;
};

static int64_t
strings_add(struct strings *s, const char *str, size_t skip)
{
	if (array_reserve(&s->at, &s->cap, s->n + 1) < 0)
		return -1;
	s->at[s->n] = s->text.len;
	text_clean(&s->text, str + skip);
	membuf_append(&s->text, "", 1);		/* keep the NUL */
	return s->text.failed ? -1 : (int64_t)s->n++;
}

/* The Mapping of a frame of type t. */
static enum frame_map
frame_map_of(char t)
{
	return t == 'K' ? MAP_KERNEL : t == 'L' ? MAP_LIBRARY : t == 'C' ? MAP_CUDA :
	       t == '?' ? MAP_UNRESOLVED : MAP_PROGRAM;
}

/* Intern a function's frame name once, without the "[k] " of a kind its
 * Mapping carries, or its label value, without "[p] "/"[t] ". */
static int64_t
function_string(struct pprof_build *b, uint32_t f, bool label)
{
	int64_t		*cache = label ? &b->label_str[f] : &b->name_str[f];
	const struct flame_function *fn = flame_tree_function(b->t, f);
	const char	*name = fn->name;
	size_t		skip = 0;

	if (label && (strncmp(name, "[p] ", 4) == 0 || strncmp(name, "[t] ", 4) == 0))
		skip = 4;
	if (!label)
		skip = (size_t)(frame_kind_name(name, fn->type) - name);
	if (*cache == 0)
		*cache = strings_add(&b->str, name, skip);
	return *cache;
}

/* A root is the host view (H) or a process; under the host a [p] node is
 * a process; right under a process a [t] node is a thread. */
static enum layer
node_layer(const struct flame_tree *t, const struct flame_node *x, const uint8_t *layer)
{
	char	type = flame_tree_function(t, x->function)->type;

	if (x->depth == 0)
		return type == 'H' ? LAYER_HOST : LAYER_PROCESS;
	if (layer[x->depth - 1] == LAYER_HOST && type == 'P')
		return LAYER_PROCESS;
	if (layer[x->depth - 1] == LAYER_PROCESS && type == 'T')
		return LAYER_THREAD;
	return LAYER_FRAME;
}

static bool
has_self(const struct flame_node *x)
{
	return x->self_samples != 0 || x->self_us != 0;
}

/* First walk: layers and sizes; functions used as frames get name_str -1
 * (a mark, replaced by their string in add_functions). */
static int
count_nodes(struct pprof_build *b)
{
	struct flame_walk	*w = flame_walk_new(b->t);
	const struct flame_node	*x;

	if (w == NULL)
		return -ENOMEM;
	while ((x = flame_walk_next(w)) != NULL) {
		uint32_t d = x->depth;

		b->layer[d] = (uint8_t)node_layer(b->t, x, b->layer);
		b->nframes[d] = (d ? b->nframes[d - 1] : 0) + (b->layer[d] == LAYER_FRAME);
		if (b->layer[d] == LAYER_FRAME && b->name_str[x->function] == 0) {
			b->name_str[x->function] = -1;
			b->nused++;
		}
		if (b->layer[d] == LAYER_PROCESS || b->layer[d] == LAYER_THREAD)
			b->nlabels++;
		if (b->layer[d] == LAYER_PROCESS)
			b->process = b->process == -1 || b->process == (int64_t)x->function ?
				     (int64_t)x->function : -2;
		if (has_self(x)) {
			b->nsamples++;
			b->nlocids += b->nframes[d];
		}
	}
	flame_walk_free(w);
	return 0;
}

#define ALLOC(ptr, n)	(((ptr) = calloc((n) + 1, sizeof(*(ptr)))) != NULL)

static int
alloc_build(struct pprof_build *b)
{
	size_t	nf = flame_tree_nfunctions(b->t), depth = flame_tree_max_depth(b->t) + 1;

	if (!ALLOC(b->name_str, nf) || !ALLOC(b->label_str, nf) || !ALLOC(b->layer, depth) ||
	    !ALLOC(b->nframes, depth) || !ALLOC(b->loc, depth) || !ALLOC(b->labels_at, depth) ||
	    count_nodes(b) < 0)
		return -ENOMEM;
	if (!ALLOC(b->samples, b->nsamples) || !ALLOC(b->sample_ptrs, b->nsamples) ||
	    !ALLOC(b->locids, b->nlocids) || !ALLOC(b->values, 2 * b->nsamples) ||
	    !ALLOC(b->labels, b->nlabels) || !ALLOC(b->sample_labels, 3 * b->nsamples) ||
	    !ALLOC(b->functions, b->nused) || !ALLOC(b->function_ptrs, b->nused) ||
	    !ALLOC(b->locations, b->nused) || !ALLOC(b->location_ptrs, b->nused) ||
	    !ALLOC(b->lines, b->nused) || !ALLOC(b->line_ptrs, b->nused))
		return -ENOMEM;
	return 0;
}

static void
free_build(struct pprof_build *b)
{
	void	*v[] = {
		b->str.at, b->str.ptrs, b->name_str, b->label_str, b->layer, b->nframes,
		b->loc, b->labels_at, b->samples, b->sample_ptrs, b->locids, b->values,
		b->labels, b->sample_labels, b->functions, b->function_ptrs, b->locations,
		b->location_ptrs, b->lines, b->line_ptrs,
	};
	size_t	i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		free(v[i]);
	membuf_free(&b->str.text);
}

/* name[at, at + n) as a string of the table. */
static int64_t
strings_add_part(struct strings *s, const char *name, size_t at, size_t n)
{
	char	*part = strndup(name + at, n);
	int64_t	id = part ? strings_add(s, part, 0) : -1;

	free(part);
	return id;
}

/* A Python frame's qualname, file and line into its Function and Line;
 * false when f is no Python frame. */
static int
python_function(struct pprof_build *b, uint32_t f, Pprof__Function *fn, Pprof__Line *ln)
{
	const struct flame_function *t = flame_tree_function(b->t, f);
	struct py_frame	py;
	int64_t		name, file;

	if (t->type != 'A' || !py_frame_parse(t->name, strlen(t->name), &py))
		return 0;
	if ((name = strings_add_part(&b->str, t->name, 0, py.qual_len)) < 0 ||
	    (file = strings_add_part(&b->str, t->name, py.file_at, py.file_len)) < 0)
		return -ENOMEM;
	fn->name = fn->system_name = name;
	fn->filename = file;
	ln->line = py.line;
	return 1;
}

/* One Function and one Location (id = function index + 1) per function
 * used as a frame. */
static int
add_functions(struct pprof_build *b)
{
	size_t	f, k = 0, nf = flame_tree_nfunctions(b->t);

	for (f = 0; f < nf; f++) {
		int64_t	name = 0;
		int	py;

		if (b->name_str[f] != -1)
			continue;
		b->name_str[f] = 0;
		pprof__function__init(&b->functions[k]);
		pprof__line__init(&b->lines[k]);
		if ((py = python_function(b, (uint32_t)f, &b->functions[k], &b->lines[k])) < 0)
			return -ENOMEM;
		if (!py && (name = function_string(b, (uint32_t)f, false)) < 0)
			return -ENOMEM;
		b->functions[k].id = f + 1;
		if (!py)
			b->functions[k].name = b->functions[k].system_name = name;
		b->lines[k].function_id = f + 1;
		b->line_ptrs[k] = &b->lines[k];
		pprof__location__init(&b->locations[k]);
		b->locations[k].id = f + 1;
		b->locations[k].mapping_id =
			frame_map_of(flame_tree_function(b->t, (uint32_t)f)->type) + 1;
		b->locations[k].n_line = 1;
		b->locations[k].line = &b->line_ptrs[k];
		b->function_ptrs[k] = &b->functions[k];
		b->location_ptrs[k] = &b->locations[k];
		k++;
	}
	return 0;
}

/* The Mappings: the program (its name when the profile has one process),
 * then one per other kind of frame. */
static int
add_mappings(struct pprof_build *b)
{
	for (int i = 0; i < NMAPS; i++) {
		int64_t	file = i == MAP_PROGRAM && b->process >= 0 ?
			       function_string(b, (uint32_t)b->process, true) :
			       strings_add(&b->str, i == MAP_PROGRAM ? "[application]" :
					   i == MAP_UNRESOLVED ? "[unresolved]" :
					   frame_kind_file(map_type[i]), 0);

		if (file < 0)
			return -ENOMEM;
		pprof__mapping__init(&b->mappings[i]);
		b->mappings[i].id = i + 1;
		b->mappings[i].filename = file;
		b->mappings[i].has_functions = 1;
		b->mapping_ptrs[i] = &b->mappings[i];
	}
	return 0;
}

/* The label a process or thread node puts on the samples below it. */
static int
node_label(struct pprof_build *b, const struct flame_node *x, int64_t key,
	   Pprof__Label **slot)
{
	Pprof__Label	*l = &b->labels[b->nlabels++];
	int64_t		value = function_string(b, x->function, true);

	if (value < 0)
		return -ENOMEM;
	pprof__label__init(l);
	l->key = key;
	l->str = value;
	*slot = l;
	return 0;
}

/* Sample values: [samples] or [samples, ns]; -ERANGE past int64. */
static int
sample_values(const struct flame_node *x, int64_t *v)
{
	if (x->self_samples > INT64_MAX || x->self_us > INT64_MAX / 1000)
		return -ERANGE;
	v[0] = (int64_t)x->self_samples;
	v[1] = (int64_t)x->self_us * 1000;
	return 0;
}

/* The sample of node x at depth d: frames leaf first, then labels. */
static int
add_sample(struct pprof_build *b, const struct flame_node *x, size_t *locs)
{
	Pprof__Sample	*s = &b->samples[b->nsamples];
	Pprof__Label	**l = &b->sample_labels[3 * b->nsamples];
	struct path_labels *pl = &b->labels_at[x->depth];
	size_t		d = x->depth + 1, k = 0;

	pprof__sample__init(s);
	s->location_id = &b->locids[*locs];
	while (d-- > 0)
		if (b->loc[d] != 0)
			s->location_id[k++] = b->loc[d];
	s->n_location_id = k;
	*locs += k;
	s->value = &b->values[2 * b->nsamples];
	s->n_value = b->time_type ? 2 : 1;
	if (sample_values(x, s->value) < 0)
		return -ERANGE;
	s->label = l;
	if (pl->process)
		l[s->n_label++] = pl->process;
	if (pl->thread)
		l[s->n_label++] = pl->thread;
	if (b->p->pid != 0)
		l[s->n_label++] = &b->pid_label;
	b->sample_ptrs[b->nsamples++] = s;
	return 0;
}

/* Second walk: the samples, with the labels of their process and thread. */
static int
add_samples(struct pprof_build *b, int64_t process_key, int64_t thread_key)
{
	struct flame_walk	*w = flame_walk_new(b->t);
	const struct flame_node	*x;
	size_t			locs = 0;
	int			sts = 0;

	if (w == NULL)
		return -ENOMEM;
	b->nsamples = b->nlabels = 0;
	while (sts == 0 && (x = flame_walk_next(w)) != NULL) {
		uint32_t d = x->depth;
		struct path_labels *pl = &b->labels_at[d];

		*pl = d ? b->labels_at[d - 1] : (struct path_labels){ NULL, NULL };
		b->layer[d] = (uint8_t)node_layer(b->t, x, b->layer);
		b->loc[d] = b->layer[d] == LAYER_FRAME ? x->function + 1 : 0;
		if (b->layer[d] == LAYER_PROCESS)
			sts = node_label(b, x, process_key, &pl->process);
		else if (b->layer[d] == LAYER_THREAD)
			sts = node_label(b, x, thread_key, &pl->thread);
		if (sts == 0 && has_self(x))
			sts = add_sample(b, x, &locs);
	}
	flame_walk_free(w);
	return sts;
}

/* Mean time per sample: 10^9 / frequency when one frequency was in force. */
static int64_t
mean_period(const struct flame_tree *t)
{
	uint64_t	samples = flame_tree_total_samples(t), us = flame_tree_total_us(t);

	if (samples == 0 || us > INT64_MAX / 1000)
		return 0;
	return (int64_t)((us * 1000 + samples / 2) / samples);
}

/* Record times are whole microseconds: round there, then scale. */
static int64_t
nanos(double t)
{
	return (int64_t)llround(t * 1e6) * 1000;
}

static int
add_header(struct pprof_build *b, Pprof__Profile *m, const struct emit_options *o)
{
	struct strings	*s = &b->str;
	int64_t		samples = strings_add(s, "samples", 0), count = strings_add(s, "count", 0);
	int64_t		time = 0, ns = 0;

	if (b->time_type && ((time = strings_add(s, b->time_type, 0)) < 0 ||
			     (ns = strings_add(s, "nanoseconds", 0)) < 0))
		return -ENOMEM;
	if (samples < 0 || count < 0 ||
	    (o->subtitle && (b->comment = strings_add(s, o->subtitle, 0)) < 0))
		return -ENOMEM;
	for (int i = 0; i < 2; i++) {
		pprof__value_type__init(&b->types[i]);
		b->type_ptrs[i] = &b->types[i];
	}
	b->types[0].type = samples;
	b->types[0].unit = count;
	b->types[1].type = time;
	b->types[1].unit = ns;
	b->period_type = b->types[b->time_type ? 1 : 0];
	m->n_sample_type = b->time_type ? 2 : 1;
	m->sample_type = b->type_ptrs;
	m->period_type = &b->period_type;
	m->period = b->time_type ? mean_period(b->t) : 1;
	m->default_sample_type = b->time_type ? time : samples;
	m->time_nanos = nanos(b->p->start);
	m->duration_nanos = nanos(b->p->end) - m->time_nanos;
	if (b->comment > 0) {
		m->n_comment = 1;
		m->comment = &b->comment;
	}
	return 0;
}

/* Point the message at everything built; the string text no longer moves. */
static int
assemble(struct pprof_build *b, Pprof__Profile *m)
{
	size_t	i;

	if (!ALLOC(b->str.ptrs, b->str.n))
		return -ENOMEM;
	for (i = 0; i < b->str.n; i++)
		b->str.ptrs[i] = b->str.text.data + b->str.at[i];
	m->n_string_table = b->str.n;
	m->string_table = b->str.ptrs;
	m->n_sample = b->nsamples;
	m->sample = b->sample_ptrs;
	m->n_mapping = NMAPS;
	m->mapping = b->mapping_ptrs;
	m->n_function = m->n_location = b->nused;
	m->function = b->function_ptrs;
	m->location = b->location_ptrs;
	return 0;
}

/* libprotobuf-c packs into this buffer; its small appends are staged and
 * deflated a block at a time. */
struct gzip_out {
	ProtobufCBuffer	base;
	z_stream	z;
	struct membuf	*out;
	int		failed;
	size_t		staged;
	unsigned char	stage[1 << 16];
};

static int
gzip_deflate(struct gzip_out *g, int flush)
{
	unsigned char	chunk[1 << 16];

	g->z.next_in = g->stage;
	g->z.avail_in = (uInt)g->staged;
	do {
		g->z.next_out = chunk;
		g->z.avail_out = sizeof(chunk);
		if (deflate(&g->z, flush) == Z_STREAM_ERROR)
			return -1;
		membuf_append(g->out, chunk, sizeof(chunk) - g->z.avail_out);
	} while (g->z.avail_out == 0);
	g->staged = 0;
	return g->out->failed ? -1 : 0;
}

static void
gzip_append(ProtobufCBuffer *buffer, size_t len, const uint8_t *data)
{
	struct gzip_out	*g = (struct gzip_out *)buffer;

	while (len > 0 && !g->failed) {
		size_t	n = sizeof(g->stage) - g->staged;

		if (n > len)
			n = len;
		memcpy(g->stage + g->staged, data, n);
		g->staged += n;
		data += n;
		len -= n;
		if (g->staged == sizeof(g->stage) && gzip_deflate(g, Z_NO_FLUSH) < 0)
			g->failed = 1;
	}
}

/* gzip (RFC 1952, mtime 0: the same message gives the same bytes). */
static int
pack_gzipped(const Pprof__Profile *m, struct membuf *out)
{
	struct gzip_out	*g = calloc(1, sizeof(*g));
	int		sts;

	if (g == NULL)
		return -ENOMEM;
	g->base.append = gzip_append;
	g->out = out;
	if (deflateInit2(&g->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	pprof__profile__pack_to_buffer(m, &g->base);
	if (!g->failed && gzip_deflate(g, Z_FINISH) < 0)
		g->failed = 1;
	deflateEnd(&g->z);
	sts = g->failed ? -ENOMEM : 0;
	free(g);
	return sts;
}

static int
build_message(struct pprof_build *b, Pprof__Profile *m, const struct emit_options *o)
{
	int64_t	process, thread, pid;
	int	sts;

	if (strings_add(&b->str, "", 0) != 0 ||
	    (process = strings_add(&b->str, "process", 0)) < 0 ||
	    (thread = strings_add(&b->str, "thread", 0)) < 0 ||
	    (pid = strings_add(&b->str, "pid", 0)) < 0)
		return -ENOMEM;
	pprof__label__init(&b->pid_label);
	b->pid_label.key = pid;
	b->pid_label.num = b->p->pid;
	if ((sts = alloc_build(b)) < 0 || (sts = add_functions(b)) < 0 ||
	    (sts = add_mappings(b)) < 0 ||
	    (sts = add_samples(b, process, thread)) < 0 || (sts = add_header(b, m, o)) < 0)
		return sts;
	return assemble(b, m);
}

int
emit_pprof(const struct profile *p, const struct emit_options *o, struct membuf *out)
{
	struct emit_options	defaults;
	struct pprof_build	b;
	Pprof__Profile		m = PPROF__PROFILE__INIT;
	int			sts;

	if (o == NULL) {
		emit_options_default(&defaults);
		o = &defaults;
	}
	memset(&b, 0, sizeof(b));
	membuf_init(&b.str.text);
	b.t = p->tree;
	b.p = p;
	b.process = -1;
	b.time_type = event_measure(o->event)->time_type;
	if ((sts = build_message(&b, &m, o)) == 0)
		sts = pack_gzipped(&m, out);
	free_build(&b);
	return sts;
}
