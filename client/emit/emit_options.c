/*
 * emit_options.c - the defaults every emitter starts from, the same as
 * flamegraph.pl's so that our graphs look familiar.
 */
#include <string.h>
#include "emit.h"

void
emit_options_default(struct emit_options *o)
{
	memset(o, 0, sizeof(*o));
	o->title = "Flame Graph";
	o->subtitle = NULL;
	o->width = 1200;
	o->minwidth = 0.1;
	o->inverted = false;
	o->count_name = "samples";
	o->event = "on-cpu";
}
