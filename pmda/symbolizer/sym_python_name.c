/*
 * sym_python_name.c - names of Python frames: the code object the walker
 * recorded, read from the process's memory (qualname, filename, line
 * table), kept in a per-process cache by address; the line of each frame
 * from the code unit the walker recorded beside it.  Every hit is checked against the object
 * as it is now (type, the string objects it points at, first line): a code
 * object freed and its memory reused, by another code object or anything
 * else, gets its name read anew instead of lending the old one.  Only a
 * process that is gone (nothing can be reused then) is named from the
 * cache unchecked.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sym_internal.h"
#include "sym_python.h"
#include "lib/hash.h"

#define CACHE_SLOTS	4096		/* per process; a power of two */
#define STR_READ	(72 + PY_NAME_MAX)	/* header + what a name keeps */

struct code_entry {
	uint64_t		code;		/* 0: empty slot */
	struct sym_python_code	seen;		/* the fields it was named from */
	char			*name;		/* "qualname\0filename\0" then the line table */
	size_t			size;		/* bytes at name */
	uint32_t		table_at, ntable;	/* the line table at name + table_at */
};

struct sym_python {
	struct sym_python_layout layout;	/* a copy: 3.13's is the process's own */
	const struct sym_python_layout *L;	/* &layout */
	uint64_t		code_type, unicode_type;
	struct code_entry	*slot;		/* CACHE_SLOTS, allocated on first name */
	size_t			bytes;
};

int
sym_python_attach(struct sym_proc *p, const struct sym_python_layout *L,
		  uint64_t code_type, uint64_t unicode_type)
{
	struct sym_python *py = calloc(1, sizeof(*py));

	if (!py)
		return -ENOMEM;
	py->layout = *L;
	py->L = &py->layout;
	py->code_type = code_type;
	py->unicode_type = unicode_type;
	py->bytes = sizeof(*py);
	sym_python_free(p->python);
	p->python = py;
	return 0;
}

static void
clear_cache(struct sym_python *py)
{
	if (!py->slot)
		return;
	for (size_t i = 0; i < CACHE_SLOTS; i++)
		free(py->slot[i].name);
	free(py->slot);
	py->slot = NULL;
	py->bytes = sizeof(*py);
}

void
sym_python_free(struct sym_python *py)
{
	if (!py)
		return;
	clear_cache(py);
	free(py);
}

size_t
sym_python_bytes(const struct sym_python *py)
{
	return py ? py->bytes : 0;
}

/* A str object of the process as UTF-8; false if it is none. */
static bool
read_str(pid_t pid, const struct sym_python *py, uint64_t addr, char *out, size_t len)
{
	uint8_t buf[STR_READ];
	uint64_t type;
	size_t need;

	if (!sym_python_read(pid, addr, buf, py->L->unicode_compact_data))
		return false;
	memcpy(&type, buf + PY_OB_TYPE, sizeof(type));
	if (type != py->unicode_type ||
	    (need = sym_python_str_size(py->L, buf, py->L->unicode_compact_data)) == 0)
		return false;
	if (need > sizeof(buf))
		need = sizeof(buf);	/* longer than a name keeps: its start */
	if (!sym_python_read(pid, addr, buf, need))
		return false;
	return sym_python_str(py->L, buf, need, out, len);
}

static bool
same_fields(const struct sym_python_code *a, const struct sym_python_code *b)
{
	return a->type == b->type && a->filename == b->filename && a->name == b->name &&
	       a->qualname == b->qualname && a->firstlineno == b->firstlineno &&
	       a->linetable == b->linetable;
}

/* The bytes object at addr, up to PY_LINETABLE_MAX of it, into buf; its
 * length, 0 when unreadable (the frames then have no line). */
static size_t
read_table(pid_t pid, const struct sym_python *py, uint64_t addr, uint8_t *buf)
{
	uint8_t head[64];
	int64_t n;

	if (!addr || py->L->bytes_data > sizeof(head) ||
	    !sym_python_read(pid, addr, head, py->L->bytes_data) ||
	    (n = sym_python_bytes_len(py->L, head, py->L->bytes_data, SIZE_MAX)) <= 0)
		return 0;
	if (n > PY_LINETABLE_MAX && py->L->minor <= 9)
		return 0;	/* 3.9's last line holds past its table's end: not a prefix's */
	if (n > PY_LINETABLE_MAX)
		n = PY_LINETABLE_MAX;	/* the units it covers keep their lines */
	return sym_python_read(pid, addr + py->L->bytes_data, buf, (size_t)n) ? (size_t)n : 0;
}

/* Fill e's name, strings and line table from c; false when c has no name. */
static bool
make_name(pid_t pid, const struct sym_python *py, const struct sym_python_code *c,
	  struct code_entry *e)
{
	char qual[PY_NAME_MAX], file[PY_NAME_MAX];
	uint8_t table[PY_LINETABLE_MAX];
	size_t q, f, t;

	if ((!c->qualname || !read_str(pid, py, c->qualname, qual, sizeof(qual))) &&
	    !read_str(pid, py, c->name, qual, sizeof(qual)))
		return false;
	if (!read_str(pid, py, c->filename, file, sizeof(file)))
		file[0] = '\0';
	q = strlen(qual) + 1, f = strlen(file) + 1;
	t = read_table(pid, py, c->linetable, table);
	if (!(e->name = malloc(q + f + t)))
		return false;
	memcpy(e->name, qual, q);
	memcpy(e->name + q, file, f);
	memcpy(e->name + q + f, table, t);
	e->size = q + f + t;
	e->table_at = (uint32_t)(q + f);
	e->ntable = (uint32_t)t;
	return true;
}

/* e's name at the code unit ip records, with its line when there is one. */
static void
put_name(const struct sym_python *py, const struct code_entry *e, uint64_t ip, char *out,
	 size_t len)
{
	uint64_t unit = (ip >> SP_INTERP_INDEX_SHIFT) & SP_INTERP_INDEX_MAX;
	int32_t line = -1;
	const char *file = e->name + strlen(e->name) + 1;

	if (unit < SP_INTERP_INDEX_MAX)	/* the most is saturated: no unit known */
		line = sym_python_line(py->L->minor, (const uint8_t *)e->name + e->table_at,
				       e->ntable, e->seen.firstlineno, unit);
	sym_python_frame_text(e->name, file, line, out, len);
}

bool
sym_python_name(struct sym_proc *p, uint64_t ip, char *out, size_t len,
		struct symbolizer_python_stats *cnt)
{
	struct sym_python *py = p->python;
	uint64_t code = (ip & SP_INTERP_OBJ_MASK) << 3;
	uint8_t obj[PY_CODE_READ];
	struct sym_python_code now;
	struct code_entry *e = NULL;
	bool readable;

	if (!py || ((ip >> SP_INTERP_KIND_SHIFT) & 7) != SP_INTERP_PYTHON)
		goto unnamed;
	if (!py->slot) {
		if (!(py->slot = calloc(CACHE_SLOTS, sizeof(*py->slot))))
			goto unnamed;
		py->bytes += CACHE_SLOTS * sizeof(*py->slot);
	}
	e = &py->slot[hash_mix(code) & (CACHE_SLOTS - 1)];
	readable = sym_python_read(p->pid, code, obj, py->L->code_size) &&
		   sym_python_code_fields(py->L, obj, py->L->code_size, &now);
	if (e->code == code && e->name && (readable ? same_fields(&e->seen, &now) : p->dead_gen)) {
		cnt->cache_hits++;
		goto named;
	}
	if (e->code == code && e->name)
		cnt->cache_stale++;
	if (!readable || now.type != py->code_type)
		goto unnamed;
	if (e->name)
		py->bytes -= e->size;
	free(e->name);
	e->name = NULL;
	e->code = code;
	e->seen = now;
	if (!make_name(p->pid, py, &now, e)) {
		e->code = 0;
		goto unnamed;
	}
	py->bytes += e->size;
named:
	cnt->names++;
	put_name(py, e, ip, out, len);
	return true;
unnamed:
	cnt->unnamed++;
	snprintf(out, len, "[unknown] [python]");
	return false;
}
