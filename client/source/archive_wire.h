/*
 * archive_wire.h - what crosses the pipe from an isolated archive reader
 * (a child process, archive_child.c) to pmflame: the source_consumer
 * calls it makes, the progress that says where a crash happened, and how
 * it ended.  Private to source/.
 *
 * A message is a 32-bit length, a type byte and its fields (native byte
 * order: both ends are the same program).  The writer commits whole
 * messages only, so a reader that dies between two leaves a stream that
 * ends on a message boundary; its crash handler may add one last message.
 */
#ifndef ARCHIVE_WIRE_H
#define ARCHIVE_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "source.h"

enum wire_type {
	WIRE_BEGIN = 1, WIRE_END, WIRE_SAMPLE, WIRE_NEAR, WIRE_COUNTERS, WIRE_GAP,
	WIRE_PROGRESS,		/* order, opening, t, prefix */
	WIRE_CRASH,		/* signal, volume (from the signal handler) */
	WIRE_DONE,		/* status (0, 1 partial, -1 error), error text */
};

#define WIRE_BUFSIZE	(256 * 1024)

/* The child's end: a buffer of whole messages over fd. */
struct wire_writer {
	int		fd;
	char		*buf;
	size_t		len;		/* committed: whole messages */
	size_t		cap;
	int		failed;		/* a write failed: the parent is gone */
};

int wire_writer_init(struct wire_writer *w, int fd);
void wire_writer_free(struct wire_writer *w);
int wire_flush(struct wire_writer *w);
/* A consumer that writes every call it gets to w (c->arg = w).  wants
 * says which optional calls the real consumer takes. */
struct source_consumer wire_consumer(struct wire_writer *w, const struct source_consumer *wants);
int wire_progress(struct wire_writer *w, const struct archive_progress *p);
int wire_done(struct wire_writer *w, int status, const char *err);
/* From a signal handler: flush the committed messages, then a CRASH. */
void wire_crash_sigsafe(struct wire_writer *w, int sig, int volume);

/* What the parent learnt from one child's stream, beyond the calls. */
struct wire_outcome {
	int		done;		/* a DONE message came */
	int		status;		/* ... with this status */
	char		err[512];	/* ... and this error */
	int		crash_signal;	/* a CRASH message came: 0 if not */
	int		crash_volume;
	struct archive_progress where;	/* the last PROGRESS (prefix unused) */
	int		consumer_sts;	/* the consumer stopped the stream */
};

/*
 * Read messages from fd until its end, making c's calls.  The host whose
 * window is open across children (begun and not ended) is kept in *open,
 * so that a successor's end() widens the window a predecessor began.
 */
struct wire_window {
	char		host[256];
	int		is_open;
	double		first, last;	/* records handed to sample(), their times */
};
int wire_replay(int fd, const struct source_consumer *c, struct wire_window *open,
		struct wire_outcome *out);

#endif /* ARCHIVE_WIRE_H */
