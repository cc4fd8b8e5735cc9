/*
 * control_store.c - stores that persist: a pmstore is applied, then every
 * stored control is written to the state file; the file is read back when
 * the PMDA starts (see controls.h, control_file.h).
 *
 * Only controls stored with pmstore are in the file: one never stored
 * keeps following the command line (or its default) across restarts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "agent_priv.h"
#include "controls/control_file.h"
#include "controls.h"

#define U32_TEXT_LEN	12

static uint64_t
bit_of(const struct control *c)
{
	return UINT64_C(1) << (c - controls);
}

/* The current value of c as text: a number into buf, or the string. */
static const char *
value_text(const struct agent *a, const struct control *c, char buf[U32_TEXT_LEN])
{
	if (c->type == CONTROL_STRING)
		return control_text(a, c);
	snprintf(buf, U32_TEXT_LEN, "%u", control_u32(a, c));
	return buf;
}

/* Write every control in a->stored to the state file. */
static int
save(const struct agent *a)
{
	const char	*names[64], *values[64];
	char		numbers[64][U32_TEXT_LEN];
	size_t		i, n = 0;

	if (a->state_path == NULL)
		return 0;	/* nowhere to keep them (unit tests) */
	for (i = 0; i < ncontrols; i++) {
		if (!(a->stored & bit_of(&controls[i])))
			continue;
		names[n] = controls[i].name;
		values[n++] = value_text(a, &controls[i], numbers[i]);
	}
	return control_file_write(a->state_path, names, values, n);
}

/* Apply a checked value and keep it; undo the change if it cannot be kept. */
static int
store(struct agent *a, const struct control *c, struct control_value *v)
{
	uint64_t	was_stored = a->stored;
	char		buf[U32_TEXT_LEN], *old;
	int		sts;

	if ((old = strdup(value_text(a, c, buf))) == NULL) {
		control_value_release(v);
		return -ENOMEM;
	}
	if ((sts = control_apply(a, c, v)) == 0) {
		a->stored |= bit_of(c);
		if ((sts = save(a)) < 0) {
			pmNotifyErr(LOG_ERR, "cannot write %s: %s; store to %s undone",
				    a->state_path, strerror(-sts), c->name);
			a->stored = was_stored;
			if (control_set_text(a, c, old) < 0)
				pmNotifyErr(LOG_ERR, "%s: could not undo the store", c->name);
			/* the file is as it was, unless only its directory's
			 * fsync failed: then this puts it back */
			save(a);
		}
	}
	free(old);
	return sts;
}

int
control_store_u32(struct agent *a, const struct control *c, unsigned u)
{
	struct control_value	v;
	int			sts;

	if ((sts = control_check_u32(c, u, &v)) < 0)
		return sts;
	return store(a, c, &v);
}

int
control_store_text(struct agent *a, const struct control *c, const char *text)
{
	struct control_value	v;
	int			sts;

	if (c->type != CONTROL_STRING)
		return PM_ERR_TYPE;
	if ((sts = control_check_text(c, text, &v)) < 0)
		return sts;
	return store(a, c, &v);
}

void
control_count_refused(struct agent *a, bool denied)
{
	if (denied)
		a->denied_stores++;
	else
		a->bad_stores++;
}

/* Reading the state file at start; a file of junk logs a few lines, not
 * one per line of junk. */
struct load {
	struct agent	*agent;
	unsigned	bad;
};

#define LOAD_LOG_MAX	10

static bool
load_log_more(struct load *l)
{
	return ++l->bad <= LOAD_LOG_MAX;
}

static void
load_entry(void *arg, unsigned line, const char *name, const char *value)
{
	struct load		*l = arg;
	const struct control	*c = control_by_name(name);
	int			sts;

	if (c == NULL) {
		if (load_log_more(l))
			pmNotifyErr(LOG_WARNING, "%s:%u: no control named \"%s\": ignored",
				    l->agent->state_path, line, name);
		return;
	}
	if ((sts = control_set_text(l->agent, c, value)) < 0) {
		if (load_log_more(l))
			pmNotifyErr(LOG_WARNING, "%s:%u: %s refused (%s): it stays as the "
				    "command line or the default set it", l->agent->state_path,
				    line, name, pmErrStr(sts));
		return;
	}
	l->agent->stored |= bit_of(c);
}

static void
load_bad(void *arg, unsigned line, const char *why)
{
	struct load	*l = arg;

	if (load_log_more(l))
		pmNotifyErr(LOG_WARNING, "%s:%u: ignored: %s", l->agent->state_path, line, why);
}

void
controls_load(struct agent *a, const char *path)
{
	struct load	l = { .agent = a };
	int		sts;

	free(a->state_path);
	if ((a->state_path = strdup(path)) == NULL) {
		pmNoMem("state file path", strlen(path) + 1, PM_RECOV_ERR);
		return;	/* stores still work, they are just not kept */
	}
	a->stored = 0;
	sts = control_file_read(path, load_entry, load_bad, &l);
	if (l.bad > LOAD_LOG_MAX)
		pmNotifyErr(LOG_WARNING, "%s: %u more bad lines ignored", path, l.bad - LOAD_LOG_MAX);
	if (sts < 0 && sts != -ENOENT)
		pmNotifyErr(LOG_WARNING, "cannot read %s: %s; controls stay as the "
			    "command line or the defaults set them", path, strerror(-sts));
	else if (a->stored)
		pmNotifyErr(LOG_INFO, "controls stored before the restart: %d, from %s",
			    __builtin_popcountll(a->stored), path);
}
