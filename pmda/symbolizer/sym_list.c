/*
 * sym_list.c - a sorted table of function symbols: the one structure every
 * symbol source (ELF, kallsyms, perf maps) ends up in, so lookups are one
 * binary search whatever the source.
 */
#include <stdlib.h>
#include <string.h>
#include "sym_internal.h"

/* A zero-sized symbol (hand-written assembly, kallsyms) covers up to the next
 * symbol; the last one of a table gets this much, not the rest of memory. */
#define SYM_LAST_SPAN	(64 * 1024)

static int
entry_cmp(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* best alias first, so de-duplication keeps it */
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size;
}

static bool
is_sorted(const struct sym_entry *s, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (entry_cmp(&s[i - 1], &s[i]) > 0)
			return false;
	return true;
}

/* Sort by address and keep one symbol per address (the best ranked alias). */
void
sym_list_sort(struct sym_list *l)
{
	size_t i, out = 0;

	if (l->n == 0)
		return;
	if (!is_sorted(l->syms, l->n))
		qsort(l->syms, l->n, sizeof(*l->syms), entry_cmp);
	for (i = 0; i < l->n; i++) {
		if (out > 0 && l->syms[out - 1].addr == l->syms[i].addr)
			continue;
		l->syms[out++] = l->syms[i];
	}
	l->n = out;
}

long
sym_list_find(const struct sym_list *l, uint64_t addr)
{
	size_t lo = 0, hi = l->n;
	const struct sym_entry *s;

	/* last symbol with s->addr <= addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	s = &l->syms[lo - 1];
	if (s->name == NULL)
		return -1;		/* past the end of a code section */
	if (s->size > 0)
		return addr - s->addr < s->size ? (long)(lo - 1) : -1;
	if (lo < l->n)
		return (long)(lo - 1);		/* bounded by the next symbol */
	return addr - s->addr < SYM_LAST_SPAN ? (long)(lo - 1) : -1;
}

/* Display names are made here, so the one rule for a frame name lives
 * here too (symbolize.h declares it for everyone). */
void
frame_name_sanitize(char *name)
{
	for (unsigned char *p = (unsigned char *)name; *p; p++) {
		if (*p == ';')
			*p = ',';
		else if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	}
}

const char *
sym_list_name(struct sym_list *l, long i)
{
	const char *raw = l->syms[i].name;
	char *pretty;

	if (raw == NULL)
		return "";		/* a section's end names nothing */

	if (l->pretty != NULL && l->pretty_n != l->n)
		sym_list_forget_names(l);	/* entries changed under the names */
	if (l->pretty == NULL) {
		l->pretty = calloc(l->n, sizeof(*l->pretty));
		if (l->pretty == NULL)
			return raw;
		l->pretty_n = l->n;
		l->pretty_bytes = l->n * sizeof(*l->pretty);
	}
	if (l->pretty[i] != NULL)
		return l->pretty[i];
	/* "memcpy@@GLIBC_2.14": the version is the linker's business, not ours */
	const char *at = l->elf_names && raw[0] ? strchr(raw + 1, '@') : NULL;
	if (at != NULL) {
		char *bare = strndup(raw, at - raw);
		if (bare == NULL)
			return raw;
		pretty = sym_demangle(bare);
		if (pretty == NULL)
			pretty = bare;
		else
			free(bare);
	} else {
		pretty = sym_demangle(raw);
	}
	if (pretty == NULL && strpbrk(raw, ";") == NULL) {
		bool clean = true;
		for (const char *p = raw; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				clean = false;
		if (clean) {
			l->pretty[i] = (char *)raw;	/* not ours to free */
			return raw;
		}
	}
	if (pretty == NULL && (pretty = strdup(raw)) == NULL)
		return raw;
	frame_name_sanitize(pretty);
	l->pretty[i] = pretty;
	l->pretty_bytes += strlen(pretty) + 1;
	return pretty;
}

/* Callers must forget names before reordering entries: a name not ours to
 * free is recognized by pointing at its own entry's raw name. */
void
sym_list_forget_names(struct sym_list *l)
{
	if (l->pretty) {
		for (size_t i = 0; i < l->pretty_n && i < l->n; i++)
			if (l->pretty[i] && l->pretty[i] != l->syms[i].name)
				free(l->pretty[i]);
		free(l->pretty);
	}
	l->pretty = NULL;
	l->pretty_n = 0;
	l->pretty_bytes = 0;
}

void
sym_list_free(struct sym_list *l)
{
	sym_list_forget_names(l);
	free(l->syms);
	memset(l, 0, sizeof(*l));
}
