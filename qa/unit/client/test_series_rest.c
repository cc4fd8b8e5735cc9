/*
 * test_series_rest.c - a string value as pmproxy's /series/values gives it
 * (the JSON text Redis holds) decodes to the string pmlogger logged.
 */
#include <stdlib.h>
#include "unit.h"
#include "source/series_rest.h"

static void
test_history_value(void)
{
	/* what /series/values returned for a logged history value, as a C string */
	char	*s = series_value_string("\"drains 1 1796171499.951573 hz 99\\u000At 6 19171 "
					 "19171 pmdastackprof\\u0009pmdastackprof\"");

	CHECK_STR(s, "drains 1 1796171499.951573 hz 99\nt 6 19171 19171 "
		  "pmdastackprof\tpmdastackprof");
	free(s);
}

static void
test_escapes(void)
{
	char	*s = series_value_string("\"a \\\"quoted\\\" \\\\ name \\u00e9\"");

	CHECK_STR(s, "a \"quoted\" \\ name \xc3\xa9");
	free(s);
	s = series_value_string("\"\"");
	CHECK_STR(s, "");
	free(s);
}

static void
test_not_a_literal(void)
{
	/* an event metric's "value" is its error code; unquoted text is not ours */
	CHECK(series_value_string("-21344") == NULL);
	CHECK(series_value_string("drains 1") == NULL);
	CHECK(series_value_string("\"unterminated") == NULL);
	CHECK(series_value_string("") == NULL);
}

int
main(void)
{
	test_history_value();
	test_escapes();
	test_not_a_literal();
	return unit_report("test_series_rest");
}
