/*
 * sym_demangle.c - C++ (Itanium ABI) and Rust (legacy and v0) names through
 * libiberty, as binutils does.  Debian 12's libiberty (binutils 2.40) has
 * rust_demangle for both Rust schemes; cplus_demangle in auto mode tries it
 * first, so a legacy Rust name (_ZN...17h<hash>E) loses its hash instead of
 * being printed as a C++ name.
 */
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "sym_internal.h"

/* Itanium C++ and Rust legacy names start "_Z", Rust v0 names "_R"; some
 * toolchains prefix one more underscore. */
static bool
looks_mangled(const char *name)
{
	return (name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')) ||
	       (name[0] == '_' && name[1] == '_' && name[2] == 'Z');
}

char *
sym_demangle(const char *name)
{
	const char *p = name;

	if (!looks_mangled(name))
		return NULL;
	if (p[1] == '_')		/* some toolchains add one more '_' */
		p++;
	/* rust_demangle first: it knows both Rust schemes and refuses C++ */
	char *out = rust_demangle(p, DMGL_PARAMS | DMGL_ANSI);
	if (out == NULL)
		out = cplus_demangle(p, DMGL_PARAMS | DMGL_ANSI);
	return out;
}
