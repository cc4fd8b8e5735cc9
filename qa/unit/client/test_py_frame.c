/*
 * test_py_frame.c - Python frames' names (client/common/py_frame.c):
 * their parts, with and without a line; the line cut as flame graphs
 * merge them; native names that look alike are no Python frames.
 */
#include "unit.h"
#include "common/py_frame.h"

static void
check_parse(const char *name, const char *qual, const char *file, unsigned line)
{
	struct py_frame	f;
	char		got[256];

	if (!py_frame_parse(name, strlen(name), &f)) {
		CHECK_STR("(none)", qual ? qual : "(none)");
		return;
	}
	snprintf(got, sizeof(got), "%.*s|%.*s|%u", (int)f.qual_len, name, (int)f.file_len,
		 name + f.file_at, f.line);
	{
		char want[256];

		snprintf(want, sizeof(want), "%s|%s|%u", qual ? qual : "(none)", file, line);
		CHECK_STR(got, want);
	}
}

static void
check_strip(const char *name, const char *want)
{
	char	buf[256];
	size_t	n;

	snprintf(buf, sizeof(buf), "%s", name);
	n = py_frame_strip_line(buf, strlen(buf));
	CHECK_STR(buf, want);
	CHECK_INT(n, strlen(want));
}

int
main(void)
{
	check_parse("serve (app/server.py:42)", "serve", "app/server.py", 42);
	check_parse("Handler.handle_request (/a b/c.py)", "Handler.handle_request", "/a b/c.py", 0);
	check_parse("f.<locals>.<lambda> (x.py:7)", "f.<locals>.<lambda>", "x.py", 7);
	check_parse("<module> (c:/w:1)", "<module>", "c:/w", 1);	/* the last colon */
	check_parse("\xc3\xa1rea (m.py:3)", "\xc3\xa1rea", "m.py", 3);
	check_parse("g (x.py:0)", "g", "x.py:0", 0);		/* line 0 is none: part of the file */
	check_parse("g (x.py:1234567890)", "g", "x.py:1234567890", 0);	/* no line that long */
	check_parse("g (:5)", "g", ":5", 0);
	check_parse("f<void ()>::g()", NULL, "", 0);		/* C++: unbalanced < */
	check_parse("[l] read (x:1)", NULL, "", 0);
	check_parse("serve", NULL, "", 0);
	check_parse("a (b", NULL, "", 0);
	check_parse("a ()", NULL, "", 0);
	check_parse("a>b (x.py:1)", NULL, "", 0);
	check_parse("a  (x.py:1)", NULL, "", 0);
	check_strip("serve (app/server.py:42)", "serve (app/server.py)");
	check_strip("serve (app/server.py)", "serve (app/server.py)");
	check_strip("f<void ()>::g(x:1)", "f<void ()>::g(x:1)");
	check_strip("[unknown] [python]", "[unknown] [python]");
	return unit_report("test_py_frame");
}
