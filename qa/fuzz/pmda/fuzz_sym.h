/*
 * fuzz_sym.h - what the symbolizer harnesses check of every table a parser
 * gives: sorted by address with one symbol per address, every name found
 * again by a lookup at its own address, and every display name (demangled,
 * sanitized) a valid folded frame: no ';', no control character.
 */
#ifndef FUZZ_SYM_H
#define FUZZ_SYM_H

#include "fuzz.h"
#include "symbolizer/sym_internal.h"

static inline void
fuzz_check_name(const char *name)
{
	if (name == NULL)
		abort();
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p == ';' || *p < 0x20 || *p == 0x7f)
			abort();
}

/* Walk l as the symbolizer would; at most limit names (demangling is slow). */
static inline void
fuzz_check_list(struct sym_list *l, size_t limit)
{
	for (size_t i = 0; i < l->n; i++) {
		if (i > 0 && l->syms[i - 1].addr >= l->syms[i].addr)
			abort();
		/* a named entry finds itself at its own address; a nameless
		 * one marks the end of a code section and finds nothing */
		if (sym_list_find(l, l->syms[i].addr) !=
		    (l->syms[i].name != NULL ? (long)i : -1))
			abort();
		if (i < limit)
			fuzz_check_name(sym_list_name(l, (long)i));
	}
	/* around the edges of the table */
	sym_list_find(l, 0);
	sym_list_find(l, UINT64_MAX);
	if (l->n > 0) {
		sym_list_find(l, l->syms[0].addr - 1);
		sym_list_find(l, l->syms[l->n - 1].addr + 0x10000);
	}
}

#endif /* FUZZ_SYM_H */
