/*
 * test_controls - the control table is the one truth about controls:
 * help/help, help/pmns and docs/pmdastackprof.1 state each control's PMID,
 * bounds and default as its row does; every row's default passes its own
 * validation; and a store through the table changes the agent and the
 * state file, or, refused, changes neither.  The state file is read back
 * over the command line, and a damaged one costs only its bad entries.
 *
 * Run from the top of the tree (make unit does): it reads the docs there.
 */
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <pcp/pmapi.h>
#include "unit.h"
#include "agent/agent_priv.h"
#include "controls/control_file.h"
#include "agent/controls.h"

static char	dir[] = "/tmp/test_controls.XXXXXX";
static char	state[256];

/* The whole file, or NULL. */
static char *
slurp(const char *path)
{
	FILE	*f = fopen(path, "r");
	char	*buf = NULL;
	size_t	len = 0;
	long	n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) != NULL) {
		len = fread(buf, 1, (size_t)n, f);
		buf[len] = '\0';
	}
	fclose(f);
	return buf;
}

/* Every run of white space one space (docs wrap anywhere), and lower
 * case when asked ("Default 99"). */
static char *
normalize(const char *start, size_t len, bool lower)
{
	char	*out = malloc(len + 1), *o = out;
	size_t	i;

	for (i = 0; i < len; i++) {
		unsigned char	c = (unsigned char)start[i];

		if (isspace(c)) {
			if (o > out && o[-1] != ' ')
				*o++ = ' ';
		} else {
			*o++ = lower ? (char)tolower(c) : (char)c;
		}
	}
	*o = '\0';
	return out;
}

/* The text from the line that starts with head to the next line that
 * starts with one of the enders (or the end), normalized; NULL if absent. */
static char *
section(const char *text, const char *head, const char *const enders[], bool lower)
{
	const char	*p = text, *start = NULL, *end;
	size_t		hl = strlen(head);
	int		i;

	for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, head, hl) == 0 && (p[hl] == ' ' || p[hl] == '\n')) {
			start = p;
			break;
		}
	if (start == NULL)
		return NULL;
	for (end = strchr(start, '\n'); end && end[1]; end = strchr(end + 1, '\n'))
		for (i = 0; enders[i]; i++)
			if (strncmp(end + 1, enders[i], strlen(enders[i])) == 0)
				goto found;
found:
	return normalize(start, end ? (size_t)(end - start + 1) : strlen(start), lower);
}

/* Each doc names the control's bounds and default as the row says. */
static void
check_states(const char *where, const struct control *c, const char *text)
{
	char		buf[64], want[96], *b, *d;
	const char	*bounds = control_bounds(c, buf, sizeof(buf));

	snprintf(want, sizeof(want), "default %s", control_default_doc(c));
	b = normalize(bounds, strlen(bounds), true);
	d = normalize(want, strlen(want), true);
	if (text == NULL || strstr(text, b) == NULL || strstr(text, d) == NULL) {
		fprintf(stderr, "%s: stackprof.control.%s must say \"%s\" and \"%s\"\n",
			where, c->name, b, d);
		CHECK(!"docs agree with the control table");
	} else {
		CHECK(1);
	}
	free(b);
	free(d);
}

static void
test_docs(void)
{
	static const char *const help_enders[] = { "@ ", NULL };
	static const char *const man_enders[] = { ".TP", ".SH", ".SS", ".PP", NULL };
	static const char *const pmns_enders[] = { "}", NULL };
	static const char *const opt_enders[] = { ".SH", NULL };
	char	*help = slurp("help/help"), *man = slurp("docs/pmdastackprof.1");
	char	*pmns = slurp("help/pmns"), *ctlns, *opts, head[128], want[128];
	size_t	i, nlisted = 0;

	CHECK(help != NULL && man != NULL && pmns != NULL);
	if (!help || !man || !pmns) {
		fprintf(stderr, "run from the top of the tree: help/ and docs/ not found\n");
		return;
	}
	ctlns = section(pmns, "stackprof.control", pmns_enders, false);
	opts = section(man, ".SH OPTIONS", opt_enders, false);
	CHECK(ctlns != NULL && opts != NULL);
	for (i = 0; ctlns && opts && i < ncontrols; i++) {
		const struct control	*c = &controls[i];
		char			*h, *m;

		snprintf(head, sizeof(head), "@ stackprof.control.%s", c->name);
		check_states("help/help", c, h = section(help, head, help_enders, true));
		snprintf(head, sizeof(head), ".B stackprof.control.%s", c->name);
		check_states("docs/pmdastackprof.1", c, m = section(man, head, man_enders, true));
		free(h);
		free(m);

		/* the PMNS gives the name the row's item */
		snprintf(want, sizeof(want), " %s STACKPROF:0:%u ", c->name, c->item);
		if (strstr(ctlns, want) == NULL)
			fprintf(stderr, "help/pmns: want \"%s\" under stackprof.control\n", want);
		CHECK(strstr(ctlns, want) != NULL);
		/* the man page lists the option */
		snprintf(want, sizeof(want), "\\-\\-%s ", c->name);
		CHECK(strstr(opts, want) != NULL);
		snprintf(want, sizeof(want), "\\-%c ", c->opt);
		CHECK(c->opt == 0 || strstr(opts, want) != NULL);
	}
	/* and nothing the table lacks */
	for (const char *p = ctlns; p && (p = strstr(p, " STACKPROF:0:")) != NULL; p++)
		nlisted++;
	CHECK_INT(nlisted, ncontrols);
	free(ctlns);
	free(opts);
	free(help);
	free(man);
	free(pmns);
}

/* Rows are unique, and every default passes its own validation. */
static void
test_rows(void)
{
	struct control_value	v;
	size_t			i, j;

	for (i = 0; i < ncontrols; i++) {
		const struct control	*c = &controls[i];

		CHECK(c->name && c->set && c->doc && c->def && c->argname);
		CHECK(c->type == CONTROL_U32 ? c->check == NULL || c->bounds != NULL :
					       c->bounds != NULL);
		CHECK_INT(control_check_text(c, c->def, &v), 0);
		control_value_release(&v);
		CHECK(control_by_name(c->name) == c && control_by_item(c->item) == c);
		for (j = 0; j < i; j++) {
			CHECK(c->opt == 0 || c->opt != controls[j].opt);
		}
	}
	CHECK(control_by_name("nonesuch") == NULL);
	CHECK(control_by_item(999) == NULL);
}

static const struct control *
ctl(const char *name)
{
	const struct control	*c = control_by_name(name);

	if (c == NULL) {
		fprintf(stderr, "no control %s\n", name);
		exit(1);
	}
	return c;
}

static struct agent *
new_agent(void)
{
	struct agent	*a = agent_new();

	CHECK(a != NULL);
	if (a == NULL || controls_reset(a) < 0)
		exit(1);
	return a;
}

static void
write_state(const char *text, size_t len)
{
	FILE	*f = fopen(state, "w");

	CHECK(f != NULL && fwrite(text, 1, len, f) == len);
	if (f)
		fclose(f);
}

/* Each control stored: the agent has it, the file has it, mode 0600. */
static void
test_store(void)
{
	struct agent	*a = new_agent();
	struct stat	st;
	char		*text;

	unlink(state);
	controls_load(a, state);
	CHECK_INT(a->stored, 0);
	CHECK_INT(control_store_u32(a, ctl("frequency"), 49), 0);
	CHECK_INT(a->config.frequency_hz, 49);
	CHECK_INT(control_store_u32(a, ctl("enabled"), 0), 0);
	CHECK_INT(a->config.enabled, 0);
	CHECK_INT(control_store_u32(a, ctl("interval"), 500), 0);
	CHECK_INT(a->config.interval_ms, 500);
	CHECK_INT(control_store_u32(a, ctl("heatmap_slots"), 10), 0);
	CHECK_INT(a->config.heatmap_slots, 10);
	CHECK_INT(control_store_text(a, ctl("process"), "^(nginx|java)\\t$"), 0);
	CHECK_STR(a->config.process_regex, "^(nginx|java)\\t$");
	CHECK_INT(control_store_text(a, ctl("pids"), "1, 2"), 0);
	CHECK_STR(a->config.pids_text, "1, 2");
	CHECK_STR(a->config.unwind, "auto");
	CHECK_INT(control_store_text(a, ctl("unwind"), "fp"), 0);
	CHECK_STR(a->config.unwind, "fp");
	CHECK_INT(a->unwind_mode, SP_UNWIND_FP);
	CHECK_INT(control_store_text(a, ctl("debuginfod"), "http://127.0.0.1:8002 https://x.org/"), 0);
	CHECK_STR(a->config.debuginfod_urls, "http://127.0.0.1:8002 https://x.org/");
	CHECK(stat(state, &st) == 0 && (st.st_mode & 07777) == 0600);
	text = slurp(state);
	CHECK(text != NULL && strstr(text, "\nfrequency=49\n") && strstr(text, "\nenabled=0\n") &&
	      strstr(text, "\ninterval=500\n") && strstr(text, "\nheatmap_slots=10\n") &&
	      strstr(text, "\nprocess=^(nginx|java)\\\\t$\n") && strstr(text, "\npids=1, 2\n") &&
	      strstr(text, "\nunwind=fp\n") &&
	      strstr(text, "\ndebuginfod=http://127.0.0.1:8002 https://x.org/\n"));
	free(text);
	agent_free(a);
}

/* A refused store leaves the agent and the file exactly as they were. */
static void
bad_store(struct agent *a, const char *name, const char *text, unsigned u, int want)
{
	const struct control	*c = ctl(name);
	struct agent_config	before = a->config;
	char			*file0 = slurp(state), *file1, *t0 = NULL, *t1;
	int			sts;

	if (c->type == CONTROL_STRING)
		t0 = strdup(control_text(a, c));
	/* pmstore hands a u32 control a number; text is the command line's */
	sts = c->type == CONTROL_STRING ? control_store_text(a, c, text) :
		text ? control_set_text(a, c, text) : control_store_u32(a, c, u);
	CHECK_INT(sts, want);
	CHECK(memcmp(&before, &a->config, sizeof(before)) == 0 || c->type == CONTROL_STRING);
	if (c->type == CONTROL_STRING) {
		t1 = (char *)control_text(a, c);
		CHECK_STR(t1, t0);
	}
	file1 = slurp(state);
	CHECK(file0 && file1 && strcmp(file0, file1) == 0);
	free(file0);
	free(file1);
	free(t0);
}

static void
test_bad_stores(void)
{
	struct agent	*a = new_agent();
	char		*big = malloc(CONTROL_TEXT_MAX + 2);

	controls_load(a, state);	/* what test_store left */
	CHECK_INT(a->config.frequency_hz, 49);
	bad_store(a, "frequency", NULL, 0, PM_ERR_BADSTORE);
	bad_store(a, "frequency", NULL, 1001, PM_ERR_BADSTORE);
	bad_store(a, "frequency", "abc", 0, PM_ERR_CONV);
	bad_store(a, "interval", NULL, 99, PM_ERR_BADSTORE);
	bad_store(a, "enabled", NULL, 2, PM_ERR_BADSTORE);
	bad_store(a, "heatmap_slots", NULL, 7, PM_ERR_BADSTORE);
	bad_store(a, "process", "(", 0, PM_ERR_BADSTORE);
	bad_store(a, "pids", "1,x", 0, PM_ERR_BADSTORE);
	bad_store(a, "pids", "0", 0, PM_ERR_BADSTORE);
	bad_store(a, "unwind", "dwarf", 0, PM_ERR_BADSTORE);
	bad_store(a, "unwind", "", 0, PM_ERR_BADSTORE);
	bad_store(a, "unwind", "AUTO", 0, PM_ERR_BADSTORE);
	bad_store(a, "unwind", "autofp", 0, PM_ERR_BADSTORE);
	CHECK_INT(a->unwind_mode, SP_UNWIND_FP);
	bad_store(a, "debuginfod", "file:///etc/shadow", 0, PM_ERR_BADSTORE);
	bad_store(a, "debuginfod", "https://u:secret@x.org", 0, PM_ERR_BADSTORE);
	bad_store(a, "debuginfod", "http://a\nhttp://b", 0, PM_ERR_BADSTORE);
	memset(big, 'a', CONTROL_TEXT_MAX + 1);
	big[CONTROL_TEXT_MAX + 1] = '\0';
	bad_store(a, "process", big, 0, PM_ERR_BADSTORE);
	free(big);
	/* a number for a string control and text for a number control */
	CHECK_INT(control_store_u32(a, ctl("process"), 5), PM_ERR_TYPE);
	CHECK_INT(control_store_text(a, ctl("frequency"), "5"), PM_ERR_TYPE);
	CHECK_INT(a->config.frequency_hz, 49);

	/* a state file that cannot be written: the store is undone */
	free(a->state_path);
	a->state_path = strdup("/nonexistent-dir/stackprof.state");
	CHECK_INT(control_store_u32(a, ctl("frequency"), 77), -ENOENT);
	CHECK_INT(a->config.frequency_hz, 49);
	CHECK_INT(control_store_text(a, ctl("process"), "x"), -ENOENT);
	CHECK_STR(a->config.process_regex, "^(nginx|java)\\t$");
	agent_free(a);
}

/* At start: default < command line < state file, per control. */
static void
test_restart(void)
{
	struct agent	*a = new_agent();
	const char	good[] = "# comment\nfrequency=49\n\nprocess=a\\\\b\\tc\\x01\n";

	write_state(good, sizeof(good) - 1);
	CHECK_INT(control_set_text(a, ctl("frequency"), "199"), 0);	/* -F 199 */
	CHECK_INT(control_set_text(a, ctl("interval"), "2000"), 0);	/* -I 2000 */
	controls_load(a, state);
	CHECK_INT(a->config.frequency_hz, 49);		/* stored wins */
	CHECK_INT(a->config.interval_ms, 2000);		/* never stored: option stays */
	CHECK_STR(a->config.process_regex, "a\\b\tc\x01");
	CHECK_INT(a->config.heatmap_slots, 50);
	/* the next store keeps what was stored, and only that */
	CHECK_INT(control_store_u32(a, ctl("heatmap_slots"), 20), 0);
	agent_free(a);
	a = new_agent();
	controls_load(a, state);
	CHECK_INT(a->config.frequency_hz, 49);
	CHECK_INT(a->config.interval_ms, 1000);
	CHECK_INT(a->config.heatmap_slots, 20);
	CHECK_STR(a->config.process_regex, "a\\b\tc\x01");
	agent_free(a);
}

/* Damage costs the damaged entries only, and never a crash. */
static void
test_damaged(void)
{
	static const char	mixed[] =
		"frequency=0\n"			/* out of bounds */
		"interval=250\n"		/* good */
		"nonesuch=1\n"			/* no such control */
		"process=(\n"			/* does not compile */
		"pids=1,2\\x00\n"		/* NUL escape */
		"heatmap_slots=\\q\n"		/* unknown escape */
		"enabled=1\\\n"			/* lone backslash */
		"=5\n"				/* no name */
		"Frequency=5\n"			/* not a name */
		"frequency 5\n"			/* not NAME=VALUE */
		"pids=12\r\n"			/* raw control byte */
		"pids=3\x00\n"			/* raw NUL */
		"enabled=0";			/* good, no newline at the end */
	struct agent		*a = new_agent();
	char			*junk;
	int			i;

	write_state(mixed, sizeof(mixed) - 1);
	controls_load(a, state);
	CHECK_INT(a->config.frequency_hz, 99);
	CHECK_INT(a->config.interval_ms, 250);
	CHECK_STR(a->config.process_regex, "");
	CHECK_STR(a->config.pids_text, "");
	CHECK_INT(a->config.heatmap_slots, 50);
	CHECK_INT(a->config.enabled, 0);
	agent_free(a);

	/* random bytes, and a file too large to be ours */
	junk = malloc(CONTROL_FILE_MAX + 1);
	srandom(12345);
	for (i = 0; i < 4096; i++)
		junk[i] = (char)random();
	write_state(junk, 4096);
	a = new_agent();
	controls_load(a, state);
	CHECK_INT(a->config.frequency_hz, 99);
	agent_free(a);
	memset(junk, '\n', CONTROL_FILE_MAX + 1);
	memcpy(junk, "frequency=5\n", 12);
	write_state(junk, CONTROL_FILE_MAX + 1);
	a = new_agent();
	controls_load(a, state);
	CHECK_INT(a->config.frequency_hz, 99);		/* refused as a whole */
	agent_free(a);
	free(junk);

	/* not a regular file */
	unlink(state);
	CHECK(mkdir(state, 0700) == 0);
	a = new_agent();
	controls_load(a, state);
	CHECK_INT(a->config.frequency_hz, 99);
	agent_free(a);
	rmdir(state);
}

/* A default from the environment (def_env), when the table accepts it. */
static void
test_env_default(void)
{
	struct agent	*a = new_agent();
	struct control	c = *ctl("frequency");

	c.def_env = "STACKPROF_TEST_FREQUENCY";
	unsetenv(c.def_env);
	CHECK_INT(control_reset(a, &c), 0);
	CHECK_INT(a->config.frequency_hz, 99);
	setenv(c.def_env, "49", 1);
	CHECK_INT(control_reset(a, &c), 0);
	CHECK_INT(a->config.frequency_hz, 49);
	setenv(c.def_env, "0", 1);			/* refused: the default */
	CHECK_INT(control_reset(a, &c), 0);
	CHECK_INT(a->config.frequency_hz, 99);
	unsetenv(c.def_env);

	/* the one row that has it: what gdb and perf are told is ours too */
	setenv("DEBUGINFOD_URLS", "https://debuginfod.debian.net", 1);
	CHECK_INT(controls_reset(a), 0);
	CHECK_STR(a->config.debuginfod_urls, "https://debuginfod.debian.net");
	setenv("DEBUGINFOD_URLS", "file:///usr/lib/debug", 1);
	CHECK_INT(controls_reset(a), 0);
	CHECK_STR(a->config.debuginfod_urls, "");
	unsetenv("DEBUGINFOD_URLS");
	CHECK_INT(controls_reset(a), 0);
	CHECK_STR(a->config.debuginfod_urls, "");
	agent_free(a);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(state, sizeof(state), "%s/stackprof.state", dir);
	pmSetProgname("test_controls");
	unsetenv("DEBUGINFOD_URLS");	/* the defaults are the table's */
	test_docs();
	test_rows();
	test_store();
	test_bad_stores();
	test_restart();
	test_damaged();
	test_env_default();
	unlink(state);
	rmdir(dir);
	return unit_report("test_controls");
}
