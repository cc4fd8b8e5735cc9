/*
 * test_site.c - index.json/index.html of a directory sink: entries of
 * successive runs add up, a rewritten period replaces its row, newest
 * first, hostile names appear only escaped, a damaged index.json is
 * rebuilt rather than fatal.
 */
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include "unit.h"
#include "common/membuf.h"
#include "publish/site.h"

static char *
get(struct sink *s, const char *path)
{
	char	*data = NULL;
	size_t	len;

	if (sink_get(s, path, &data, &len) < 0)
		return NULL;
	return data;
}

static void
test_site(void)
{
	char			base[] = "/tmp/test_site.XXXXXX", err[256], cmd[300];
	struct sink		*s;
	char			*html, *json;
	struct site_entry	old = {
		.host = "h1", .name = "java", .start = 1000, .end = 1060, .samples = 5,
		.stem = "h1/java/old", .exts = { "svg", "json" }, .nexts = 2,
	};
	struct site_entry	new[2] = {
		{ .host = "h<1>", .name = "</td><script>alert(1)</script>", .pid = 42,
		  .start = 2000, .end = 2060, .samples = 7, .stem = "h_1_/x/new",
		  .exts = { "svg" }, .nexts = 1 },
		{ .host = "h1", .name = "java", .start = 1000, .end = 1060, .samples = 6,
		  .stem = "h1/java/old", .exts = { "svg" }, .nexts = 1 },
	};

	CHECK(mkdtemp(base) != NULL);
	CHECK((s = sink_open(base, NULL, err, sizeof(err))) != NULL);
	if (s == NULL)
		return;
	CHECK_INT(site_update(s, &old, 1, err, sizeof(err)), 0);
	CHECK_INT(site_update(s, new, 2, err, sizeof(err)), 0);
	html = get(s, "index.html");
	json = get(s, "index.json");
	CHECK(html != NULL && json != NULL);
	if (html && json) {
		char	*a = strstr(html, "h1/java/old.svg"), *b = strstr(html, "h_1_/x/new.svg");

		CHECK(a != NULL && b != NULL && b < a);		/* newest first */
		/* the row was replaced, and the earlier run's json is still linked:
		 * its file is still there */
		CHECK(strstr(html, "h1/java/old.json") != NULL);
		CHECK(a != NULL && strstr(a + 1, "h1/java/old.svg\"") == NULL);	/* once */
		/* one script, the constant filter, before which no profile text */
		CHECK(strstr(html, "<script>") != NULL &&
		      strstr(strstr(html, "<script>") + 1, "<script>") == NULL);
		CHECK(strstr(html, "<script>alert") == NULL);
		CHECK(strstr(html, "&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt; (42)") != NULL);
		CHECK(strstr(html, "h&lt;1&gt;") != NULL);
		CHECK(strstr(json, "\"samples\":\t6") != NULL);
		CHECK(strstr(json, "\"samples\":\t5") == NULL);
	}
	free(html);
	free(json);

	/* a damaged manifest is replaced by what this run knows */
	CHECK_INT(sink_put(s, "index.json", "application/json", "{\"profiles\": [", 14,
			   err, sizeof(err)), 0);
	CHECK_INT(site_update(s, &old, 1, err, sizeof(err)), 0);
	html = get(s, "index.html");
	CHECK(html != NULL && strstr(html, "<p>1 profile, ") != NULL);
	free(html);
	sink_close(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	CHECK_INT(system(cmd), 0);
}

/* Processes updating one directory's index at once lose no rows. */
#define WRITERS		4
#define UPDATES		40

static void
write_rows(const char *dir, int writer)
{
	char			err[256], name[16], stem[64];
	struct sink		*s = sink_open(dir, NULL, err, sizeof(err));
	struct site_entry	e = { .host = "h", .name = name, .samples = 1,
				      .stem = stem, .exts = { "svg" }, .nexts = 1 };

	if (s == NULL)
		_exit(1);
	snprintf(name, sizeof(name), "w%d", writer);
	for (int i = 0; i < UPDATES; i++) {
		e.start = 1000 + i;
		e.end = 1001 + i;
		snprintf(stem, sizeof(stem), "h/w%d/%d", writer, i);
		if (site_update(s, &e, 1, err, sizeof(err)) < 0)
			_exit(1);
	}
	sink_close(s);
	_exit(0);
}

static void
test_concurrent_writers(void)
{
	char		base[] = "/tmp/test_site.XXXXXX", err[256], cmd[300], stem[64];
	struct sink	*s;
	char		*json;
	int		status, missing = 0, failed = 0;

	CHECK(mkdtemp(base) != NULL);
	for (int w = 0; w < WRITERS; w++)
		if (fork() == 0)
			write_rows(base, w);
	for (int w = 0; w < WRITERS; w++)
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++;
	CHECK_INT(failed, 0);
	CHECK((s = sink_open(base, NULL, err, sizeof(err))) != NULL);
	if (s == NULL)
		return;
	json = get(s, "index.json");
	CHECK(json != NULL);
	for (int w = 0; json && w < WRITERS; w++)
		for (int i = 0; i < UPDATES; i++) {
			snprintf(stem, sizeof(stem), "\"h/w%d/%d\"", w, i);
			missing += strstr(json, stem) == NULL;
		}
	printf("concurrent_writers: %d writers x %d updates, %d rows missing\n",
	       WRITERS, UPDATES, missing);
	CHECK_INT(missing, 0);
	free(json);
	sink_close(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	CHECK_INT(system(cmd), 0);
}

/* Each row says what it is (flame, diff, heat map) and what its number
 * counts; diff rows are marked; the process filter is called so. */
static void
test_kinds_units(void)
{
	const char	*text = "{\"profiles\": ["
		"{\"host\": \"h\", \"profile\": \"a\", \"path\": \"h/a/1\", \"end\": 1, \"samples\": 7, \"formats\": [\"svg\"]},"
		"{\"host\": \"h\", \"profile\": \"a\", \"event\": \"off-cpu\", \"path\": \"h/a/2-off-cpu\", \"end\": 2, \"samples\": 900, \"formats\": [\"svg\"]},"
		"{\"host\": \"h\", \"profile\": \"a\", \"event\": \"page-fault\", \"path\": \"h/a/3-page-fault\", \"end\": 3, \"samples\": 40, \"formats\": [\"svg\"]},"
		"{\"host\": \"h\", \"profile\": \"a\", \"path\": \"h/a/4-diff\", \"end\": 4, \"samples\": 5, \"formats\": [\"svg\"]},"
		"{\"host\": \"h\", \"profile\": \"heat map\", \"path\": \"h/Total/5-heatmap\", \"end\": 5, \"samples\": 9, \"formats\": [\"svg\"]}]}";
	char		*json;
	struct membuf	html;

	CHECK_INT(site_merge_text(text, NULL, &json, &html), 0);
	CHECK(strstr(html.data, "<td>flame</td><td class=\"n\">7 samples</td>") != NULL);
	CHECK(strstr(html.data, "<td>flame</td><td class=\"n\">900 &#181;s</td>") != NULL);
	CHECK(strstr(html.data, "<td>flame</td><td class=\"n\">40 faults</td>") != NULL);
	CHECK(strstr(html.data, "<td>diff</td><td class=\"n\">5 samples</td>") != NULL);
	CHECK(strstr(html.data, "<td>heat map</td><td class=\"n\">9 samples</td>") != NULL);
	CHECK(strstr(html.data, "<tr class=\"diff\" data-host=\"h\"") != NULL);
	CHECK(strstr(html.data, "<label>Process <select id=\"filter-profile\">") != NULL);
	CHECK(strstr(html.data, "<th>Process</th>") != NULL);
	free(json);
	membuf_free(&html);
}

/* Spool delivery's merge: newer rows replace older ones of the same path,
 * the rest of both stay, and damaged or missing text has no rows. */
static void
test_merge_text(void)
{
	const char	*older = "{\"profiles\": ["
		"{\"host\": \"h\", \"profile\": \"a\", \"path\": \"h/a/1\", \"end\": 1, \"samples\": 1, \"formats\": [\"svg\"]},"
		"{\"host\": \"h\", \"profile\": \"b\", \"path\": \"h/b/2\", \"end\": 2, \"samples\": 2, \"formats\": [\"svg\"]}]}";
	const char	*newer = "{\"profiles\": ["
		"{\"host\": \"h\", \"profile\": \"b\", \"path\": \"h/b/2\", \"end\": 2, \"samples\": 20, \"formats\": [\"json\"]},"
		"{\"host\": \"h\", \"profile\": \"c\", \"path\": \"h/c/3\", \"end\": 3, \"samples\": 3, \"formats\": [\"svg\"]}]}";
	char		*json;
	struct membuf	html;

	CHECK_INT(site_merge_text(newer, older, &json, &html), 0);
	CHECK(strstr(json, "\"h/a/1\"") != NULL && strstr(json, "\"h/c/3\"") != NULL);
	CHECK(strstr(json, "\"samples\":\t20") != NULL && strstr(json, "\"samples\":\t2,") == NULL);
	CHECK(strstr(html.data, "<p>3 profiles, ") != NULL);
	/* the newer row's numbers, both runs' files */
	CHECK(strstr(html.data, "h/b/2.json") != NULL && strstr(html.data, "h/b/2.svg") != NULL);
	free(json);
	membuf_free(&html);

	CHECK_INT(site_merge_text("{\"profiles\": [", older, &json, &html), 0);
	CHECK(strstr(html.data, "<p>2 profiles, ") != NULL);
	free(json);
	membuf_free(&html);
	CHECK_INT(site_merge_text(NULL, NULL, &json, &html), 0);
	CHECK(strstr(json, "\"profiles\":\t[]") != NULL);
	free(json);
	membuf_free(&html);
}

int
main(void)
{
	test_site();
	test_merge_text();
	test_kinds_units();
	test_concurrent_writers();
	return unit_report("test_site");
}
