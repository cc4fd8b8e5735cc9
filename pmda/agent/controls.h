/*
 * controls.h - the table of stackprof.control.* metrics: one row per
 * control, and everything done to controls goes through it.
 *
 * A row names the control, its PMID item, type, bounds (or parser), default,
 * setter, command-line option and a one-line doc.  From the table come: the
 * control metrics' descriptors (pcp/metrics.c), pmstore validation
 * (pcp/control.c), pmdastackprof's options and usage text (main.c), the
 * state file that keeps stored values across restarts, and the check that
 * help/help and docs/pmdastackprof.1 say what the table says
 * (qa/unit/pmda/test_controls.c).  Adding a control: one row in
 * control_table.c, its agent_set_* setter, its entries in help/help, help/pmns
 * and the man page (docs/design.md, "PMDA", says it step by step).
 */
#ifndef CONTROLS_H
#define CONTROLS_H

#include <stdbool.h>
#include <stddef.h>
#include "agent.h"
#include "controls/control_parse.h"

enum control_type { CONTROL_U32, CONTROL_STRING };

/* Units of the metric (pcp/metrics.c maps them to pmUnits). */
enum control_units { CONTROL_UNITS_NONE, CONTROL_UNITS_HZ, CONTROL_UNITS_MSEC,
		     CONTROL_UNITS_USEC, CONTROL_UNITS_COUNT, CONTROL_UNITS_SEC };

struct control {
	const char	*name;		/* stackprof.control.NAME, state file key */
	unsigned	item;		/* PMID item in cluster 0: fixed forever */
	enum control_type type;
	enum control_units units;
	/* u32: [min, max], then check (may be NULL); string: at most max
	 * bytes, then parse (may be NULL), which may fill the other fields
	 * of the value for the setter */
	unsigned	min, max;
	int		(*check)(unsigned v);
	int		(*parse)(struct control_value *v);
	const char	*bounds;	/* what the docs call the bounds, when more
					 * than "min..max" */
	const char	*def;		/* default, as text */
	const char	*def_env;	/* environment variable whose value, when
					 * set and valid, is the default instead */
	int		(*set)(struct agent *a, struct control_value *v);
	size_t		field;		/* offsetof(struct agent_config, ...) */
	char		opt;		/* short command-line option, or 0; the
					 * long one is --NAME */
	const char	*argname;	/* its argument in the usage text */
	const char	*doc;		/* one line */
};

extern const struct control	controls[];
extern const size_t		ncontrols;

const struct control *control_by_name(const char *name);
const struct control *control_by_item(unsigned item);

/* The current value of a control. */
unsigned control_u32(const struct agent *a, const struct control *c);
const char *control_text(const struct agent *a, const struct control *c);
/* The bounds as the docs must state them ("1..1000", c->bounds). */
const char *control_bounds(const struct control *c, char *buf, size_t len);
/* The default as the docs must state it ("99", "empty"). */
const char *control_default_doc(const struct control *c);

/* Check a value for c without applying it: 0 and *v ready for
 * control_apply, or a PCP error code (PM_ERR_BADSTORE, PM_ERR_CONV) and *v
 * empty.  Text for a u32 control is a decimal number. */
int control_check_u32(const struct control *c, unsigned u, struct control_value *v);
int control_check_text(const struct control *c, const char *text, struct control_value *v);
/* Hand a checked value to the control's setter; v is released. */
int control_apply(struct agent *a, const struct control *c, struct control_value *v);

/* A control to its default: def, or the value of def_env in the agent's
 * environment if set and valid (else logged). */
int control_reset(struct agent *a, const struct control *c);
/* Every control to its default (at start, before the command line). */
int controls_reset(struct agent *a);

/* A value in text (command line, state file): parse, check, apply.  Not
 * written to the state file.  0, or a PCP error code / -errno and nothing
 * changed. */
int control_set_text(struct agent *a, const struct control *c, const char *text);

/*
 * A pmstore: check, apply, then write every stored control to the state
 * file.  0, or a PCP error code / -errno and nothing changed (the agent and
 * the state file; a value applied but not written is undone).
 */
int control_store_u32(struct agent *a, const struct control *c, unsigned v);
int control_store_text(struct agent *a, const struct control *c, const char *text);
/* A store was refused before or by the table: denied (not root) or a bad
 * value; counted for stackprof.stats.{denied,bad}_stores. */
void control_count_refused(struct agent *a, bool denied);

/*
 * Where stores are kept, and what was kept there by an earlier run: each
 * valid entry is applied over the default and the command line (a store
 * is the newer wish); an unreadable file, or a garbled, unknown or
 * out-of-bounds entry, is logged with pmNotifyErr and changes nothing.
 * Never fails: a PMDA always starts.
 */
void controls_load(struct agent *a, const char *path);

/* The controls' stats (control_stats.c); its handle is the agent. */
struct stat_table;
extern const struct stat_table control_stat_table;

#endif /* CONTROLS_H */
