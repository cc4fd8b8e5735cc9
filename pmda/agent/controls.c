/*
 * controls.c - finding, checking and applying controls through the table
 * (see controls.h; the rows are in control_table.c, stores and the state
 * file in control_store.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/pmapi.h>
#include "agent_priv.h"
#include "controls.h"

const struct control *
control_by_name(const char *name)
{
	size_t	i;

	for (i = 0; i < ncontrols; i++)
		if (strcmp(controls[i].name, name) == 0)
			return &controls[i];
	return NULL;
}

const struct control *
control_by_item(unsigned item)
{
	size_t	i;

	for (i = 0; i < ncontrols; i++)
		if (controls[i].item == item)
			return &controls[i];
	return NULL;
}

unsigned
control_u32(const struct agent *a, const struct control *c)
{
	return *(const unsigned *)((const char *)&a->config + c->field);
}

const char *
control_text(const struct agent *a, const struct control *c)
{
	return *(char *const *)((const char *)&a->config + c->field);
}

const char *
control_bounds(const struct control *c, char *buf, size_t len)
{
	if (c->bounds != NULL)
		return c->bounds;
	snprintf(buf, len, "%u..%u", c->min, c->max);
	return buf;
}

const char *
control_default_doc(const struct control *c)
{
	return c->def[0] != '\0' ? c->def : "empty";
}

int
control_check_u32(const struct control *c, unsigned u, struct control_value *v)
{
	int	sts;

	memset(v, 0, sizeof(*v));
	if (c->type != CONTROL_U32)
		return PM_ERR_TYPE;
	if (u < c->min || u > c->max)
		return PM_ERR_BADSTORE;
	if (c->check != NULL && (sts = c->check(u)) < 0)
		return sts;
	v->u = u;
	return 0;
}

int
control_check_text(const struct control *c, const char *text, struct control_value *v)
{
	unsigned	u;
	int		sts;

	memset(v, 0, sizeof(*v));
	if (c->type == CONTROL_U32) {
		if ((sts = control_parse_uint(text, c->min, c->max, &u)) < 0)
			return sts;
		return control_check_u32(c, u, v);
	}
	if (text == NULL || strlen(text) > c->max)
		return PM_ERR_BADSTORE;
	v->text = text;
	if (c->parse != NULL && (sts = c->parse(v)) < 0) {
		if (v->why[0])
			pmNotifyErr(LOG_WARNING, "stackprof.control.%s refused: %s", c->name, v->why);
		control_value_release(v);
		return sts;
	}
	return 0;
}

int
control_apply(struct agent *a, const struct control *c, struct control_value *v)
{
	int	sts = c->set(a, v);

	control_value_release(v);
	return sts;
}

int
control_set_text(struct agent *a, const struct control *c, const char *text)
{
	struct control_value	v;
	int			sts;

	if ((sts = control_check_text(c, text, &v)) < 0)
		return sts;
	return control_apply(a, c, &v);
}

/* A default from the environment: used when the table accepts it. */
static bool
env_default(struct agent *a, const struct control *c)
{
	const char	*text = c->def_env ? getenv(c->def_env) : NULL;
	int		sts;

	if (text == NULL)
		return false;
	if ((sts = control_set_text(a, c, text)) < 0)
		pmNotifyErr(LOG_WARNING, "$%s refused for %s (%s): default %s used",
			    c->def_env, c->name, pmErrStr(sts), control_default_doc(c));
	return sts == 0;
}

int
control_reset(struct agent *a, const struct control *c)
{
	return env_default(a, c) ? 0 : control_set_text(a, c, c->def);
}

int
controls_reset(struct agent *a)
{
	size_t	i;
	int	sts;

	for (i = 0; i < ncontrols; i++)
		if ((sts = control_reset(a, &controls[i])) < 0)
			return sts;
	return 0;
}
