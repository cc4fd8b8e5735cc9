/*
 * unwind_worker.c - one thread that compiles tables, so that a large
 * library (libLLVM: ~1 M rows, ~0.2 s) never sits in the PMDA's main loop.
 * It takes jobs in order, builds with unwind_table_build (libdw/libelf
 * only, no libpcp), converts the rows to the kernel's 12-byte format and
 * signals an eventfd.  Rows built but not yet loaded by the main thread
 * are bounded (queue_bytes): past it the worker waits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "unwind_internal.h"

struct uworker {
	pthread_t	thread;
	pthread_mutex_t	lock;
	pthread_cond_t	wake;		/* a job came, room was made, or stop */
	struct ujob	*todo, **todo_tail;
	struct ujob	*done, **done_tail;
	unsigned	pending;	/* todo + running */
	size_t		waiting_bytes, queue_bytes;
	bool		stop;
	int		efd;
};

void
ujob_free(struct ujob *j)
{
	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	free(j->image);
	free(j->rows);
	free(j);
}

/* The compiler's rows in the kernel's format, relative to the first pc. */
static int
convert(struct ujob *j, const struct unwind_table *t)
{
	if (t->nrows == 0) {
		snprintf(j->errmsg, sizeof(j->errmsg), "no CFI rows");
		return -1;
	}
	if (t->nrows > SP_UNWIND_MAX_TABLE_ROWS ||
	    t->rows[t->nrows - 1].pc - t->rows[0].pc > UINT32_MAX) {
		snprintf(j->errmsg, sizeof(j->errmsg), "table too large: %zu rows", t->nrows);
		return -1;
	}
	if (!(j->rows = malloc(t->nrows * sizeof(*j->rows)))) {
		snprintf(j->errmsg, sizeof(j->errmsg), "out of memory");
		return -1;
	}
	j->base = t->rows[0].pc;
	j->nrows = (uint32_t)t->nrows;
	for (size_t i = 0; i < t->nrows; i++)
		j->rows[i] = (struct sp_unwind_row){
			.pc = (uint32_t)(t->rows[i].pc - j->base),
			.cfa_offset = t->rows[i].cfa_offset,
			.rbp_offset = t->rows[i].rbp_offset,
			.cfa_type = t->rows[i].cfa_type,
		};
	return 0;
}

/*
 * A file without .eh_frame may keep its CFI as .debug_frame in the debug
 * file a -dbgsym package installs, found by build-id as gdb and the
 * symbolizer find it.  Opened only when the file has no .eh_frame (rare
 * on x86-64), and used only when its build-id is the file's.
 */
static int
open_debug_file(int fd)
{
	char id[UNWIND_FILE_ID_LEN], other[UNWIND_FILE_ID_LEN], path[UNWIND_FILE_ID_LEN + 64];
	const char *hex = id + strlen("build-id:");
	int dfd;

	if (unwind_file_id(fd, id, sizeof(id)) < 0 || strncmp(id, "build-id:", 9) != 0 ||
	    strlen(hex) < 4)
		return -1;
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if ((dfd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return -1;
	if (unwind_file_id(dfd, other, sizeof(other)) < 0 || strcmp(id, other) != 0) {
		close(dfd);
		return -1;
	}
	return dfd;
}

static void
build(struct ujob *j)
{
	struct unwind_build_stats st;
	struct unwind_table t = { 0 };
	int err, dfd;

	memset(&st, 0, sizeof(st));
	if (j->image) {
		err = unwind_table_build_mem(j->image, j->len, &t, &st, j->errmsg, sizeof(j->errmsg));
	} else {
		err = unwind_table_build(j->fd, -1, &t, &st, j->errmsg, sizeof(j->errmsg));
		if (err < 0 && st.source == UNWIND_SRC_NONE && (dfd = open_debug_file(j->fd)) >= 0) {
			err = unwind_table_build(j->fd, dfd, &t, &st, j->errmsg, sizeof(j->errmsg));
			close(dfd);
		}
	}
	j->build_ns = st.build_ns;
	j->err = err < 0 ? -1 : convert(j, &t);
	unwind_table_free(&t);
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	free(j->image);
	j->image = NULL;
	/* no malloc_trim here: it walks every arena, the main thread's too,
	 * under their locks; the agent trims once per drain (unwinder.c) */
}

static void *
run(void *arg)
{
	struct uworker *w = arg;
	uint64_t one = 1;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct ujob *j;

		while (!w->stop && (!w->todo || w->waiting_bytes > w->queue_bytes))
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->stop)
			break;
		j = w->todo;
		w->todo = j->next;
		if (!w->todo)
			w->todo_tail = &w->todo;
		pthread_mutex_unlock(&w->lock);
		build(j);
		pthread_mutex_lock(&w->lock);
		j->next = NULL;
		*w->done_tail = j;
		w->done_tail = &j->next;
		w->waiting_bytes += (size_t)j->nrows * sizeof(*j->rows);
		w->pending--;
		ssize_t r = write(w->efd, &one, sizeof(one));	/* cannot fail: far from overflow */
		(void)r;
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct uworker *
uworker_new(size_t queue_bytes, int *fd)
{
	struct uworker *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->todo_tail = &w->todo;
	w->done_tail = &w->done;
	w->queue_bytes = queue_bytes;
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->efd < 0)
		goto fail;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	if ((errno = pthread_create(&w->thread, NULL, run, w)) != 0) {
		close(w->efd);
		goto fail;
	}
	*fd = w->efd;
	return w;
fail:
	free(w);
	return NULL;
}

static void
free_list(struct ujob *j)
{
	while (j) {
		struct ujob *next = j->next;

		ujob_free(j);
		j = next;
	}
}

void
uworker_free(struct uworker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	free_list(w->todo);
	free_list(w->done);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	close(w->efd);
	free(w);
}

void
uworker_submit(struct uworker *w, struct ujob *j)
{
	j->next = NULL;
	pthread_mutex_lock(&w->lock);
	*w->todo_tail = j;
	w->todo_tail = &j->next;
	w->pending++;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

bool
uworker_cancel(struct uworker *w, struct ujob *j)
{
	struct ujob **pp;
	bool found;

	pthread_mutex_lock(&w->lock);
	for (pp = &w->todo; *pp && *pp != j; pp = &(*pp)->next)
		;
	if ((found = *pp != NULL)) {
		*pp = j->next;
		if (w->todo_tail == &j->next)
			w->todo_tail = pp;
		w->pending--;
	}
	pthread_mutex_unlock(&w->lock);
	if (!found)
		return false;
	ujob_free(j);
	return true;
}

struct ujob *
uworker_take_done(struct uworker *w)
{
	struct ujob *j;
	uint64_t n;

	ssize_t r = read(w->efd, &n, sizeof(n));	/* resets it; EAGAIN: was not set */

	(void)r;
	pthread_mutex_lock(&w->lock);
	j = w->done;
	w->done = NULL;
	w->done_tail = &w->done;
	pthread_mutex_unlock(&w->lock);
	return j;
}

void
uworker_release(struct uworker *w, size_t bytes)
{
	pthread_mutex_lock(&w->lock);
	w->waiting_bytes = w->waiting_bytes > bytes ? w->waiting_bytes - bytes : 0;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

unsigned
uworker_pending(struct uworker *w)
{
	unsigned n;

	pthread_mutex_lock(&w->lock);
	n = w->pending;
	pthread_mutex_unlock(&w->lock);
	return n;
}
