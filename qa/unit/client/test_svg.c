/*
 * test_svg.c - SVG flame graphs: well-formed XML (checked by xmllint, the
 * real parser, not by us), one frame per node with the right counts and
 * geometry, byte-for-byte determinism, hostile names and titles escaped,
 * no profile text inside the script, icicle layout, minwidth, labels cut
 * at character boundaries, several roots under "all", empty profiles.
 */
#include <stdlib.h>
#include <unistd.h>
#include "unit.h"
#include "emit/emit.h"
#include "emit/svg_script.h"
#include "flame_input.h"

static const char *const profile =
	"proc;[t] main;main;foo;bar 3\n"
	"proc;[t] main;main;foo 2\n"
	"proc;[t] main;main;baz 1\n"
	"proc;[t] worker;start;foo;foo;foo 4\n";

static char *
svg_with(const char *folded, const struct emit_options *o)
{
	struct flame_tree	*t = tree_from(folded);
	struct membuf		out;
	char			*s = NULL;

	membuf_init(&out);
	if (t != NULL && emit_svg(t, o, &out) == 0)
		s = strdup(out.data);
	flame_tree_free(t);
	membuf_free(&out);
	return s;
}

static char *
svg_of(const char *folded)
{
	return svg_with(folded, NULL);
}

/* xmllint (libxml2) decides whether the document is well-formed. */
static int
xml_well_formed(const char *doc)
{
	char	path[] = "/tmp/test_svg.XXXXXX", cmd[128];
	int	fd = mkstemp(path), sts;
	size_t	len = strlen(doc);

	if (fd < 0 || write(fd, doc, len) != (ssize_t)len) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	sts = system(cmd);
	unlink(path);
	return sts == 0;
}

static int
count(const char *hay, const char *needle)
{
	int	n = 0;

	for (; (hay = strstr(hay, needle)) != NULL; hay++)
		n++;
	return n;
}

/* The i-th frame's <title> text, or "" (static buffer). */
static const char *
frame_title(const char *svg, int i)
{
	static char	buf[512];
	const char	*p = svg, *end;

	buf[0] = '\0';
	while (i-- >= 0 && p)
		if ((p = strstr(p, "<g><title>")) != NULL)
			p += strlen("<g><title>");
	if (p && (end = strstr(p, "</title>")) != NULL && (size_t)(end - p) < sizeof(buf)) {
		memcpy(buf, p, (size_t)(end - p));
		buf[end - p] = '\0';
	}
	return buf;
}

/* The attribute attr of the i-th frame's rect, as written. */
static const char *
frame_attr(const char *svg, int i, const char *attr)
{
	static char	buf[64];
	char		key[32];
	const char	*p = svg, *end;

	buf[0] = '\0';
	snprintf(key, sizeof(key), " %s=\"", attr);
	while (i-- >= 0 && p)
		if ((p = strstr(p, "<g><title>")) != NULL)
			p++;
	if (p && (p = strstr(p, "<rect")) && (p = strstr(p, key)) &&
	    (end = strchr(p + strlen(key), '"')) && (size_t)(end - p) < sizeof(buf)) {
		p += strlen(key);
		memcpy(buf, p, (size_t)(end - p));
		buf[end - p] = '\0';
	}
	return buf;
}

static void
test_frames(void)
{
	static const char *const want[] = {
		"proc (10 samples, 100.00%)", "[t] main (6 samples, 60.00%)",
		"main (6 samples, 60.00%)", "baz (1 samples, 10.00%)",
		"foo (5 samples, 50.00%)", "bar (3 samples, 30.00%)",
		"[t] worker (4 samples, 40.00%)", "start (4 samples, 40.00%)",
		"foo (4 samples, 40.00%)", "foo (4 samples, 40.00%)", "foo (4 samples, 40.00%)",
	};
	char	*svg = svg_of(profile);
	int	i;

	CHECK(svg != NULL);
	if (svg == NULL)
		return;
	CHECK(xml_well_formed(svg));
	CHECK_INT(count(svg, "<g><title>"), 11);
	for (i = 0; i < 11; i++)
		CHECK_STR(frame_title(svg, i), want[i]);
	/* 1180 px for 10 samples: baz at the left edge, foo after it */
	CHECK_STR(frame_attr(svg, 0, "width"), "1180.00");
	CHECK_STR(frame_attr(svg, 3, "x"), "10.00");
	CHECK_STR(frame_attr(svg, 3, "width"), "118.00");
	CHECK_STR(frame_attr(svg, 4, "x"), "128.00");
	CHECK_STR(frame_attr(svg, 6, "x"), "718.00");
	/* root at the bottom: height 1200x(36 + 18 legend + 6*16 + 34) */
	CHECK(strstr(svg, "height=\"184\"") != NULL);
	CHECK_STR(frame_attr(svg, 0, "y"), "134");
	CHECK_STR(frame_attr(svg, 10, "y"), "54");
	/* colours by type: threads blue, application warm */
	CHECK(strncmp(frame_attr(svg, 1, "fill"), "rgb(1", 5) == 0);
	free(svg);
}

static void
test_deterministic(void)
{
	char	*a = svg_of(profile), *b = svg_of(profile);
	char	*c = svg_of("proc;[t] worker;start;foo;foo;foo 4\nproc;[t] main;main;baz 1\n"
			    "proc;[t] main;main;foo 1\nproc;[t] main;main;foo;bar 3\n"
			    "proc;[t] main;main;foo 1\n");

	CHECK(a && b && c);
	if (a && b && c) {
		CHECK(strcmp(a, b) == 0);
		CHECK(strcmp(a, c) == 0);	/* insertion order does not matter */
	}
	free(a);
	free(b);
	free(c);
}

/* The script in the file is exactly our fixed script: nothing from the
 * profile is ever inside it. */
static void
test_script_fixed(void)
{
	char		*svg = svg_of("evil\";alert(1);//;f 1\n");
	const char	*s = svg ? strstr(svg, "<script type=\"text/ecmascript\"><![CDATA[\n") : NULL;
	const char	*e = s ? strstr(s, "]]></script>") : NULL;

	CHECK(s != NULL && e != NULL);
	if (s && e) {
		s += strlen("<script type=\"text/ecmascript\"><![CDATA[\n");
		CHECK_INT(e - s, strlen(svg_script));
		CHECK(strncmp(s, svg_script, strlen(svg_script)) == 0);
	}
	CHECK_INT(count(svg ? svg : "", "<script"), 1);
	free(svg);
}

static void
test_hostile(void)
{
	struct emit_options	o;
	char			*svg;

	emit_options_default(&o);
	o.title = "</text><script>alert('t')</script>";
	o.subtitle = "]]> & <!-- \x07";
	o.count_name = "<b>us</b>";
	svg = svg_with(
		"<img src=x onerror=alert(1)>;[t] </title><script>alert(2)</script>;"
		"q\"uote&amp'apos;ctl\x01\x1b\x7f;bad\xc3\x28\xed\xa0\x80\xff;ok\xc3\xa9 3\n", &o);
	CHECK(svg != NULL);
	if (svg == NULL)
		return;
	CHECK(xml_well_formed(svg));
	CHECK_INT(count(svg, "<script"), 1);
	CHECK_INT(count(svg, "<img"), 0);
	CHECK_INT(count(svg, "<b>"), 0);
	CHECK(strstr(svg, "&lt;/text&gt;&lt;script&gt;alert(&#39;t&#39;)&lt;/script&gt;"));
	CHECK(strstr(svg, "]]&gt; &amp; &lt;!-- \xef\xbf\xbd"));
	CHECK_STR(frame_title(svg, 0),
		  "&lt;img src=x onerror=alert(1)&gt; (3 &lt;b&gt;us&lt;/b&gt;, 100.00%)");
	CHECK_STR(frame_title(svg, 1),
		  "[t] &lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt; "
		  "(3 &lt;b&gt;us&lt;/b&gt;, 100.00%)");
	CHECK(strstr(frame_title(svg, 2), "q&quot;uote&amp;amp&#39;apos") == frame_title(svg, 2));
	CHECK_STR(frame_title(svg, 3),
		  "ctl\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd (3 &lt;b&gt;us&lt;/b&gt;, 100.00%)");
	/* bad lead byte, lone surrogate (3 bytes), stray 0xff: one U+FFFD each */
	CHECK(strncmp(frame_title(svg, 4), "bad\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd"
		      "\xef\xbf\xbd\xef\xbf\xbd ", 20) == 0);
	CHECK(strncmp(frame_title(svg, 5), "ok\xc3\xa9 (", 6) == 0);
	free(svg);
}

static void
test_inverted(void)
{
	struct emit_options	o;
	char			*svg;

	emit_options_default(&o);
	o.inverted = true;
	o.width = 600;
	svg = svg_with(profile, &o);
	CHECK(svg != NULL);
	if (svg == NULL)
		return;
	CHECK(xml_well_formed(svg));
	CHECK(strstr(svg, "data-inverted=\"1\""));
	CHECK_STR(frame_attr(svg, 0, "y"), "54");	/* root on top, under the legend */
	CHECK_STR(frame_attr(svg, 10, "y"), "134");
	CHECK_STR(frame_attr(svg, 0, "width"), "580.00");
	free(svg);
}

/* A frame narrower than minwidth is left out, and so are its callees. */
static void
test_minwidth(void)
{
	struct emit_options	o;
	char			*svg;

	svg = svg_of("p;big 100000\np;small;deeper 1\n");
	CHECK_INT(count(svg ? svg : "", "<g><title>"), 2);	/* 0.0118 px < 0.1 */
	free(svg);
	emit_options_default(&o);
	o.minwidth = 0;		/* still at least MIN_DRAWN (0.05 px) */
	o.width = 100020;	/* 1 px per sample */
	svg = svg_with("p;big 100000\np;small;deeper 1\n", &o);
	CHECK_INT(count(svg ? svg : "", "<g><title>"), 4);
	free(svg);
}

/* Labels are cut to what fits, at character (not byte) boundaries. */
static void
test_labels(void)
{
	char	name[400], in[512], want[200];
	char	*svg;
	const char *p;
	int	i;

	for (i = 0; i < 150; i++)	/* 150 two-byte characters */
		memcpy(name + 2 * i, "\xc3\xa9", 2);
	name[300] = '\0';
	snprintf(in, sizeof(in), "p;%s 1\np;x 9\n", name);
	svg = svg_of(in);
	CHECK(svg != NULL && xml_well_formed(svg));
	/* 118 px / (12 * 0.59) = 16 characters: 14 + ".." */
	for (i = 0; i < 14; i++)
		memcpy(want + 2 * i, "\xc3\xa9", 2);
	strcpy(want + 28, "..</text>");
	p = svg ? strstr(svg, "\xc3\xa9 (1 samples") : NULL;
	CHECK(p && strstr(p, want) != NULL);
	/* too narrow for 3 characters: no label */
	free(svg);
	svg = svg_of("p;tiny 1\np;x 1000\n");
	p = svg ? strstr(svg, "<title>tiny") : NULL;
	CHECK(p && strstr(p, "\"></text></g>") && strstr(p, "\"></text></g>") < strstr(p, "<g>"));
	free(svg);
}

static void
test_several_roots(void)
{
	char	*svg = svg_of("zsh;main 1\nbash;main 3\n");

	CHECK(svg && xml_well_formed(svg));
	CHECK_INT(count(svg ? svg : "", "<g><title>"), 5);
	CHECK_STR(frame_title(svg ? svg : "", 0), "all (4 samples, 100.00%)");
	CHECK_STR(frame_title(svg ? svg : "", 1), "bash (3 samples, 75.00%)");
	free(svg);
}

/* Names of random bytes (deterministic LCG): the SVG stays well-formed. */
static void
test_random_bytes(void)
{
	struct flame_tree	*t = flame_tree_new();
	char			names[4][24];
	const char		*path[4] = { names[0], names[1], names[2], names[3] };
	struct membuf		out;
	uint32_t		x = 2024;
	int			i, d, k;

	for (i = 0; i < 200; i++) {
		for (d = 0; d < 4; d++) {
			for (k = 0; k < 23; k++) {
				x = x * 1103515245u + 12345u;
				names[d][k] = (char)(1 + (x >> 16) % 255);	/* any byte but NUL */
			}
			names[d][23] = '\0';
		}
		CHECK_INT(flame_tree_add(t, path, 4, 1 + i % 5, 10), 0);
	}
	CHECK_INT(flame_tree_finish(t), 0);
	membuf_init(&out);
	CHECK_INT(emit_svg(t, NULL, &out), 0);
	CHECK(out.data && xml_well_formed(out.data));
	CHECK_INT(count(out.data ? out.data : "", "<script"), 1);
	membuf_free(&out);
	flame_tree_free(t);
}

/* Count the frames whose fill is blue (r == g, b well above) and all. */
static void
count_blue(const char *svg, int *blue, int *all)
{
	const char	*p = svg;
	unsigned	r, g, b;

	*blue = *all = 0;
	while ((p = strstr(p, "fill=\"rgb(")) != NULL) {
		p += strlen("fill=\"rgb(");
		if (sscanf(p, "%u,%u,%u", &r, &g, &b) != 3)
			continue;
		(*all)++;
		*blue += r == g && b > r + 40;
	}
}

/* Off-CPU graphs are blue, as Gregg's; on-CPU ones keep their types' hues. */
static void
test_event_palette(void)
{
	struct emit_options	o;
	char			*on, *off;
	int			blue, all;

	emit_options_default(&o);
	on = svg_with(profile, &o);
	o.event = "off-cpu";
	off = svg_with(profile, &o);
	CHECK(on && off);
	if (on && off) {
		count_blue(off, &blue, &all);
		CHECK(all > 5);
		CHECK_INT(blue, all);
		count_blue(on, &blue, &all);
		CHECK(blue < all);
	}
	free(on);
	free(off);
}

static void
test_empty(void)
{
	char	*svg = svg_of("");

	CHECK(svg && xml_well_formed(svg));
	CHECK(svg && strstr(svg, ">No samples</text>"));
	CHECK_INT(count(svg ? svg : "", "<g><title>"), 0);
	free(svg);
}

/* The index of the frame whose title starts with name, or -1. */
static int
frame_named(const char *svg, const char *name)
{
	int	i;

	for (i = 0; *frame_title(svg, i); i++)
		if (strncmp(frame_title(svg, i), name, strlen(name)) == 0)
			return i;
	return -1;
}

/* One 150-frame tower beside a shallow stack: the tower keeps its top
 * frames above a marker of the band it folds, the graph fits 1,000 px,
 * and --full-height draws every frame. */
static void
test_fold(void)
{
	struct membuf		in;
	struct emit_options	o;
	char			*svg;
	int			i;

	membuf_init(&in);
	membuf_puts(&in, "proc;[t] main;main;shallow 30\nproc;[t] main");
	for (i = 0; i < 150; i++)
		membuf_printf(&in, ";f%d", i);
	membuf_puts(&in, ";top_leaf 10\n");
	CHECK(!in.failed);
	svg = svg_of(in.data);
	CHECK(svg != NULL);
	if (svg != NULL) {
		CHECK(xml_well_formed(svg));
		/* top_leaf at depth 152: 104 depths folded so it lands on level 49 */
		CHECK(frame_named(svg, "\xe2\x80\xa6 104 frames folded") >= 0);
		CHECK(strstr(svg, "height=\"888\"") != NULL);
		CHECK(frame_named(svg, "top_leaf") >= 0);
		CHECK_STR(frame_attr(svg, frame_named(svg, "top_leaf"), "y"), "54");
		CHECK_STR(frame_attr(svg, frame_named(svg, "proc"), "y"), "838");
		CHECK(frame_named(svg, "f30 ") >= 0);	/* depth 32: the fold's root */
		CHECK(frame_named(svg, "f31 ") < 0);
		CHECK(frame_named(svg, "f134 ") < 0);	/* depth 136, the band's last */
		CHECK(frame_named(svg, "f135 ") >= 0);
		CHECK(frame_named(svg, "shallow") >= 0);
		/* the marker is as wide as its root */
		CHECK_STR(frame_attr(svg, frame_named(svg, "\xe2\x80\xa6"), "width"),
			  frame_attr(svg, frame_named(svg, "f30 "), "width"));
	}
	free(svg);
	emit_options_default(&o);
	o.full_height = true;
	svg = svg_with(in.data, &o);
	CHECK(svg != NULL);
	if (svg != NULL) {
		CHECK(frame_named(svg, "\xe2\x80\xa6") < 0);
		CHECK(frame_named(svg, "f77 ") >= 0);
		/* 36 + 18 + 153 levels x 16 + 34 */
		CHECK(strstr(svg, "height=\"2536\"") != NULL);
	}
	free(svg);
	membuf_free(&in);
}

/* A narrow frame's label drops its "[k] " prefix before it is cut; the
 * title keeps the whole name; the legend names the prefixes. */
static void
test_prefix_cut(void)
{
	char	*svg = svg_of("proc;[k] do_sys_openat2_and_more 1\nproc;wide 30\n");
	int	i;

	CHECK(svg != NULL);
	if (svg == NULL)
		return;
	i = frame_named(svg, "[k] do_sys_openat2_and_more (1 samples");
	CHECK(i >= 0);
	CHECK(strstr(svg, ">do_..</text>") != NULL);	/* 37 px: 5 characters */
	CHECK(strstr(svg, ">[k] ..</text>") == NULL);
	CHECK(strstr(svg, "<g id=\"legend\"") != NULL);
	CHECK(strstr(svg, ">[k] kernel</text>") != NULL);
	CHECK(strstr(svg, ">[l] library</text>") != NULL);
	free(svg);
}

int
main(void)
{
	test_frames();
	test_deterministic();
	test_script_fixed();
	test_hostile();
	test_inverted();
	test_minwidth();
	test_labels();
	test_several_roots();
	test_random_bytes();
	test_event_palette();
	test_empty();
	test_fold();
	test_prefix_cut();
	return unit_report("test_svg");
}
