/*
 * source_folded.c - read a file of folded stacks (folded_line.h): blank
 * lines are skipped; anything else that does not fit is an error naming
 * the line, because a profile built from half a file would be quietly
 * wrong.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "lib/hash.h"
#include "folded_line.h"
#include "source.h"

/*
 * The input is read and split on a thread of its own, a block of whole
 * lines at a time, while the calling thread adds the last block's samples
 * to the profiles: a big input's reading, splitting and hashing of frames
 * (half of building its tree) then costs no time of the profiles' own
 * (stack_frames).
 */
#define BLOCK	(1 << 20)

struct batch {
	char			*buf;		/* whole lines, split in place */
	size_t			cap, len;
	struct stack_sample	*samples;
	struct stack_frames	*split;		/* each sample's frames */
	unsigned long		*linenos;	/* each sample's line */
	size_t			nsamples, samples_cap, split_cap, linenos_cap;
	const char		**names;	/* the samples' frames, one after another */
	uint32_t		*lens;
	uint64_t		*hashes;
	size_t			nframes, names_cap, lens_cap, hashes_cap;
	char			why[512];	/* the reader stopped after the samples */
	bool			last;		/* nothing follows */
	bool			full;		/* the adder's until it empties it */
};

struct folded_reader {
	FILE		*f;
	const char	*name, *host;
	unsigned	frequency;
	unsigned long	lineno;
	char		*carry;		/* the last block's unfinished line */
	size_t		carry_len, carry_cap;
	struct batch	batch[2];
	pthread_mutex_t	lock;
	pthread_cond_t	changed;
	bool		stop;		/* the adder failed: read no more */
};

/* Split s's stack (stack_len bytes) into its non-empty frames, after b's;
 * how many into *split. */
static int
split_frames(struct batch *b, const struct stack_sample *s, size_t stack_len,
	     struct stack_frames *split)
{
	const char	*next = s->stack, *end = next + stack_len, *f;
	uint32_t	n = 0;
	size_t		len;
	/* room for the most frames the stack can hold: a byte and a ';' each */
	size_t		most = b->nframes + stack_len / 2 + 1;

	if (stack_len >= UINT32_MAX ||
	    array_reserve(&b->names, &b->names_cap, most) < 0 ||
	    array_reserve(&b->lens, &b->lens_cap, most) < 0 ||
	    array_reserve(&b->hashes, &b->hashes_cap, most) < 0)
		return -ENOMEM;
	while ((f = stack_next_frame(&next, end, &len)) != NULL) {
		b->names[b->nframes] = f;
		b->lens[b->nframes] = (uint32_t)len;
		b->hashes[b->nframes++] = hash_bytes(f, len);
		n++;
	}
	*split = (struct stack_frames){ .n = n };
	return 0;
}

/* Line r->lineno as a sample of b's; 0, or -1 with b->why set. */
static int
add_line(struct folded_reader *r, struct batch *b, char *line, size_t len)
{
	struct stack_sample	s = { .host = r->host, .event = "on-cpu" };
	const char		*why;
	size_t			stack_len;

	if ((why = folded_line_parse(line, len, &s, &stack_len)) != NULL) {
		snprintf(b->why, sizeof(b->why), "%s:%lu: malformed folded line: %s", r->name,
			 r->lineno, why);
		return -1;
	}
	/* rounded, so 1 sample at 99 Hz is 10101 us, as DeepFlow shows */
	s.value_us = s.count / r->frequency * 1000000 +
		     (s.count % r->frequency * 1000000 + r->frequency / 2) / r->frequency;
	if (array_reserve(&b->samples, &b->samples_cap, b->nsamples + 1) < 0 ||
	    array_reserve(&b->split, &b->split_cap, b->nsamples + 1) < 0 ||
	    array_reserve(&b->linenos, &b->linenos_cap, b->nsamples + 1) < 0 ||
	    split_frames(b, &s, stack_len, &b->split[b->nsamples]) < 0) {
		snprintf(b->why, sizeof(b->why), "%s:%lu: out of memory", r->name, r->lineno);
		return -1;
	}
	b->linenos[b->nsamples] = r->lineno;
	b->samples[b->nsamples++] = s;
	return 0;
}

/* Read into b after the line carried over until it holds a whole line or
 * the input ends; NULL or why not. */
static const char *
read_block(struct folded_reader *r, struct batch *b)
{
	size_t	want = r->carry_len + BLOCK;

	if (array_reserve(&b->buf, &b->cap, want + 1) < 0)
		return "out of memory";
	if (r->carry_len > 0)
		memcpy(b->buf, r->carry, r->carry_len);
	b->len = r->carry_len;
	for (;;) {
		b->len += fread(b->buf + b->len, 1, b->cap - 1 - b->len, r->f);
		if (ferror(r->f))
			return strerror(errno);
		if (feof(r->f)) {
			b->last = true;
			return NULL;
		}
		if (memchr(b->buf + r->carry_len, '\n', b->len - r->carry_len) != NULL)
			return NULL;
		/* a line longer than the block */
		if (array_reserve(&b->buf, &b->cap, b->cap * 2) < 0)
			return "out of memory";
	}
}

/* Fill b with the next block's samples; a problem goes into b->why. */
static void
fill_batch(struct folded_reader *r, struct batch *b)
{
	char		*p, *nl, *end;
	const char	*why;
	size_t		len;

	b->nsamples = b->nframes = 0;
	b->why[0] = '\0';
	b->last = false;
	if ((why = read_block(r, b)) != NULL) {
		snprintf(b->why, sizeof(b->why), "cannot read %s: %s", r->name, why);
		b->last = true;
		return;
	}
	end = b->buf + b->len;
	for (p = b->buf; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			if (!b->last)
				break;
			nl = end;	/* the last line, unterminated */
		}
		*nl = '\0';
		r->lineno++;
		for (len = (size_t)(nl - p); len > 0 && p[len - 1] == '\r';)
			p[--len] = '\0';
		if (len > 0 && add_line(r, b, p, len) < 0) {
			b->last = true;
			return;
		}
	}
	r->carry_len = 0;
	if (p < end) {
		if (array_reserve(&r->carry, &r->carry_cap, (size_t)(end - p)) < 0) {
			snprintf(b->why, sizeof(b->why), "%s: out of memory", r->name);
			b->last = true;
			return;
		}
		memcpy(r->carry, p, (size_t)(end - p));
		r->carry_len = (size_t)(end - p);
	}
}

/* Hand b's samples on; 0, or -1 with err set. */
static int
empty_batch(struct folded_reader *r, struct batch *b, stack_sample_fn fn, void *arg,
	    char *err, size_t errlen)
{
	size_t	i, at = 0;
	int	sts;

	for (i = 0; i < b->nsamples; i++) {
		struct stack_sample	*s = &b->samples[i];
		struct stack_frames	*split = &b->split[i];

		/* the arrays have stopped moving */
		split->names = b->names + at;
		split->lens = b->lens + at;
		split->hashes = b->hashes + at;
		at += split->n;
		s->frames = split;
		if ((sts = fn(arg, s)) < 0) {
			snprintf(err, errlen, "%s:%lu: %s", r->name, b->linenos[i], strerror(-sts));
			return -1;
		}
	}
	if (b->why[0] != '\0') {
		snprintf(err, errlen, "%s", b->why);
		return -1;
	}
	return 0;
}

static void *
reader_run(void *arg)
{
	struct folded_reader	*r = arg;
	unsigned		i;

	for (i = 0;; i ^= 1) {
		struct batch	*b = &r->batch[i];
		bool		last;

		pthread_mutex_lock(&r->lock);
		while (b->full && !r->stop)
			pthread_cond_wait(&r->changed, &r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			return NULL;
		}
		pthread_mutex_unlock(&r->lock);
		fill_batch(r, b);
		last = b->last;		/* b is the adder's once full */
		pthread_mutex_lock(&r->lock);
		b->full = true;
		pthread_cond_broadcast(&r->changed);
		pthread_mutex_unlock(&r->lock);
		if (last)
			return NULL;
	}
}

/* The adder's side: each batch as the reader fills it. */
static int
add_batches(struct folded_reader *r, stack_sample_fn fn, void *arg, char *err, size_t errlen)
{
	unsigned	i;
	int		sts;

	for (i = 0;; i ^= 1) {
		struct batch	*b = &r->batch[i];
		bool		last;

		pthread_mutex_lock(&r->lock);
		while (!b->full)
			pthread_cond_wait(&r->changed, &r->lock);
		pthread_mutex_unlock(&r->lock);
		sts = empty_batch(r, b, fn, arg, err, errlen);
		last = b->last;
		pthread_mutex_lock(&r->lock);
		b->full = false;
		r->stop = sts < 0;
		pthread_cond_broadcast(&r->changed);
		pthread_mutex_unlock(&r->lock);
		if (sts < 0 || last)
			return sts;
	}
}

static void
reader_free(struct folded_reader *r)
{
	unsigned	i;

	for (i = 0; i < 2; i++) {
		struct batch *b = &r->batch[i];

		free(b->buf);
		free(b->samples);
		free(b->split);
		free(b->linenos);
		free(b->names);
		free(b->lens);
		free(b->hashes);
	}
	free(r->carry);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->changed);
	if (r->f != stdin)
		fclose(r->f);
}

int
source_folded_read(const char *path, const char *host, unsigned frequency,
		   stack_sample_fn fn, void *arg, char *err, size_t errlen)
{
	struct folded_reader	r = {
		.host = host, .frequency = frequency,
		.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER,
	};
	pthread_t		reader;
	int			sts;

	r.f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	r.name = r.f == stdin ? "(stdin)" : path;
	if (r.f == NULL) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (pthread_create(&reader, NULL, reader_run, &r) == 0) {
		sts = add_batches(&r, fn, arg, err, errlen);
		pthread_join(reader, NULL);
	} else {	/* no thread to spare: read, then add, in turn */
		do {
			fill_batch(&r, &r.batch[0]);
			sts = empty_batch(&r, &r.batch[0], fn, arg, err, errlen);
		} while (sts == 0 && !r.batch[0].last);
	}
	reader_free(&r);
	return sts;
}
