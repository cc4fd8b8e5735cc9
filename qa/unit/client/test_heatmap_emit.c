/*
 * test_heatmap_emit.c - the heat map SVG: embedded data exactly as
 * documented, the cell image a valid PNG with the right colours, hostile
 * names escaped and never in script text, deterministic, empty ranges noted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "unit.h"
#include "emit/colour.h"
#include "emit/emit.h"
#include "emit/emit_heatmap.h"
#include "emit/heatmap_scale.h"
#include "profile/heatmap.h"
#include "common/membuf.h"

/* The text between open and close (exclusive) after the first open. */
static char *
between(const char *s, const char *open, const char *close)
{
	const char	*a = strstr(s, open), *b;

	if (a == NULL)
		return NULL;
	a += strlen(open);
	if ((b = strstr(a, close)) == NULL)
		return NULL;
	return strndup(a, (size_t)(b - a));
}

static int
b64val(int c)
{
	const char *d = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(d, c) : NULL;

	return p ? (int)(p - d) : -1;
}

static size_t
unbase64(const char *s, unsigned char *out)
{
	size_t	n = 0, i, len = strlen(s);

	for (i = 0; i + 3 < len; i += 4) {
		int a = b64val(s[i]), b = b64val(s[i + 1]), c = b64val(s[i + 2]), d = b64val(s[i + 3]);
		out[n++] = (unsigned char)(a << 2 | b >> 4);
		if (c >= 0)
			out[n++] = (unsigned char)(b << 4 | c >> 2);
		if (d >= 0)
			out[n++] = (unsigned char)(c << 6 | d);
	}
	return n;
}

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/*
 * Decode the PNG of the emitted SVG into pixels (w x h, top row first),
 * checking the signature, every chunk's CRC and the zlib stream (zlib's own
 * uncompress verifies the Adler-32).  Returns a malloc'd buffer or NULL.
 */
static unsigned char *
decode_png(const char *svg, unsigned *w, unsigned *h)
{
	char		*b64 = between(svg, "base64,", "\"");
	unsigned char	*png, *pix = NULL, *raw = NULL;
	size_t		len, off = 8;
	uLongf		rawlen;
	unsigned	y;

	if (b64 == NULL)
		return NULL;
	png = malloc(strlen(b64));
	len = unbase64(b64, png);
	free(b64);
	CHECK(len > 8 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0);
	*w = *h = 0;
	while (off + 12 <= len) {
		uint32_t	n = be32(png + off);
		const unsigned char *type = png + off + 4;

		CHECK_INT(crc32(crc32(0, type, 4), type + 4, n), be32(type + 4 + n));
		if (memcmp(type, "IHDR", 4) == 0) {
			*w = be32(type + 4);
			*h = be32(type + 8);
			CHECK_INT(type[12], 8);
			CHECK_INT(type[13], 3);
		} else if (memcmp(type, "IDAT", 4) == 0) {
			rawlen = (uLongf)(*h) * (*w + 1);
			raw = malloc(rawlen + 1);
			CHECK_INT(uncompress(raw, &rawlen, type + 4, n), Z_OK);
			CHECK_INT(rawlen, (size_t)(*h) * (*w + 1));
		}
		off += 12 + n;
	}
	CHECK_INT(off, len);
	if (raw && *w && *h) {
		pix = malloc((size_t)*w * *h);
		for (y = 0; y < *h; y++) {
			CHECK_INT(raw[(size_t)y * (*w + 1)], 0);	/* filter none */
			memcpy(pix + (size_t)y * *w, raw + (size_t)y * (*w + 1) + 1, *w);
		}
	}
	free(raw);
	free(png);
	return pix;
}

/* 3 seconds x 4 slices: column 0 half covered, a hot cell, an empty one. */
static void
small_map(struct heatmap *hm)
{
	heatmap_init(hm, 4);
	heatmap_add_cell(hm, 100, 2, 0);
	heatmap_add_cell(hm, 100, 3, 5);
	heatmap_add_cell(hm, 101, 0, 10);
	heatmap_add_cell(hm, 101, 1, 0);
	heatmap_add_cell(hm, 101, 2, 1);
	heatmap_add_cell(hm, 101, 3, 0);
	heatmap_add_cell(hm, 102, 0, 0);
	heatmap_add_cell(hm, 102, 1, 0);
	heatmap_add_cell(hm, 102, 2, 0);
	heatmap_add_cell(hm, 102, 3, 0);
	heatmap_add_folded(hm, 100, "app;[t] app;main;spin", 4);
	heatmap_add_folded(hm, 101, "app;[t] app;main;spin", 1);
	heatmap_add_folded(hm, 101, "app;[t] app;main;</sp:f><script>alert(1)</script>", 9);
	heatmap_add_folded(hm, 101, "app;[t] app;main;a&b \"q\" \x01", 2);
	heatmap_finish(hm);
}

static void
test_embedded_data(void)
{
	struct heatmap	hm;
	struct membuf	out;
	char		*s, *script;

	small_map(&hm);
	membuf_init(&out);
	CHECK_INT(emit_heatmap(&hm, NULL, &out), 0);
	CHECK(strncmp(out.data, "<?xml version=\"1.0\"", 19) == 0);
	CHECK(out.len > 7 && strcmp(out.data + out.len - 7, "</svg>\n") == 0);
	CHECK(strstr(out.data, "start=\"100\" cols=\"3\" rows=\"4\" slicems=\"250\" max=\"10\"") != NULL);
	/* column 0: slices 0,1 no data, 2 zero, 3 five; trailing zeros dropped */
	CHECK_STR(s = between(out.data, "<sp:counts>", "</sp:counts>"), "-,-,,5/10,,1/");
	free(s);
	CHECK_STR(s = between(out.data, "<sp:frames>", "</sp:frames>"),
		  "<sp:f>app</sp:f><sp:f>[t] app</sp:f><sp:f>main</sp:f><sp:f>spin</sp:f>"
		  "<sp:f>&lt;/sp:f&gt;&lt;script&gt;alert(1)&lt;/script&gt;</sp:f>"
		  "<sp:f>a&amp;b &quot;q&quot; \xef\xbf\xbd</sp:f>");
	free(s);
	/* node - parent and frame, base 36: a chain, then two siblings of spin */
	CHECK_STR(s = between(out.data, "<sp:nodes>", "</sp:nodes>"), "1.0 1.1 1.2 1.3 2.4 3.5");
	free(s);
	/* per column: node gaps and counts (omitted when 1), base 36 */
	CHECK_STR(s = between(out.data, "<sp:stacks>", "</sp:stacks>"), "4*4/4,1*9,1*2/");
	free(s);
	CHECK(strstr(out.data, "<script>alert") == NULL);
	script = between(out.data, "<![CDATA[\n", "]]>");
	CHECK(script != NULL && strcmp(script, heatmap_script) == 0);
	CHECK(script != NULL && strstr(script, "alert") == NULL && strstr(script, "spin") == NULL);
	free(script);
	CHECK(strstr(out.data, HEATMAP_EMPTY_NOTE) == NULL);
	membuf_free(&out);
	heatmap_free(&hm);
}

static void
test_png_cells(void)
{
	struct heatmap	hm;
	struct membuf	out;
	unsigned char	*px;
	unsigned	w, h;

	small_map(&hm);
	membuf_init(&out);
	emit_heatmap(&hm, NULL, &out);
	px = decode_png(out.data, &w, &h);
	CHECK(px != NULL);
	CHECK_INT(w, 3);
	CHECK_INT(h, 4);
	if (px && w == 3 && h == 4) {
		/* top image row is slice 3; palette: 0 no data, 1 zero, 2..33 shades */
		CHECK_INT(px[3 * 3 + 0], 0);	/* second 100, slice 0: no data */
		CHECK_INT(px[2 * 3 + 0], 0);
		CHECK_INT(px[1 * 3 + 0], 1);	/* slice 2: zero */
		/* by percentile of the counts 1, 5, 10: lightest, middle, darkest */
		CHECK_INT(px[0 * 3 + 0], 2 + 16);
		CHECK_INT(px[3 * 3 + 1], 33);	/* the maximum: darkest */
		CHECK_INT(px[1 * 3 + 1], 2);	/* the smallest: the lightest shade */
		CHECK_INT(px[3 * 3 + 2], 1);
	}
	free(px);
	membuf_free(&out);
	heatmap_free(&hm);
}

static void
test_deterministic(void)
{
	struct heatmap			hm;
	struct membuf			a, b;
	struct heatmap_emit_options	o = { "t <&>", "sub \"x\"", 900 };

	small_map(&hm);
	membuf_init(&a);
	membuf_init(&b);
	emit_heatmap(&hm, &o, &a);
	emit_heatmap(&hm, &o, &b);
	CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
	CHECK(strstr(a.data, ">t &lt;&amp;&gt;</text>") != NULL);
	CHECK(strstr(a.data, ">sub &quot;x&quot;</text>") != NULL);
	membuf_free(&a);
	membuf_free(&b);
	heatmap_free(&hm);
}

/* No samples at all: still a complete SVG, with the note; with covered
 * columns the empty grid is drawn too. */
static void
test_empty(void)
{
	struct heatmap	hm;
	struct membuf	out;
	unsigned char	*px;
	unsigned	w, h;

	heatmap_init(&hm, 50);
	heatmap_finish(&hm);
	membuf_init(&out);
	CHECK_INT(emit_heatmap(&hm, NULL, &out), 0);
	CHECK(strstr(out.data, ">" HEATMAP_EMPTY_NOTE "</text>") != NULL);
	CHECK(strstr(out.data, "<image") == NULL);
	CHECK(strstr(out.data, "cols=\"0\"") != NULL);
	CHECK(out.len > 7 && strcmp(out.data + out.len - 7, "</svg>\n") == 0);
	membuf_reset(&out);

	heatmap_cover_range(&hm, 1000, 1009);
	heatmap_finish(&hm);
	CHECK_INT(emit_heatmap(&hm, NULL, &out), 0);
	CHECK(strstr(out.data, ">" HEATMAP_EMPTY_NOTE "</text>") != NULL);
	px = decode_png(out.data, &w, &h);
	CHECK_INT(w, 10);
	CHECK_INT(h, 50);
	CHECK(px != NULL && px[0] == 0 && px[w * h - 1] == 0);	/* all "no data" */
	free(px);
	membuf_free(&out);
	heatmap_free(&hm);
}

/* A wide map gets a time axis with round labels, cells at least 2 px. */
static void
test_wide_axis(void)
{
	struct heatmap	hm;
	struct membuf	out;

	heatmap_init(&hm, 50);
	heatmap_add_cell(&hm, 86400 * 20000 + 1, 0, 1);		/* 00:00:01 UTC */
	heatmap_add_cell(&hm, 86400 * 20000 + 3600, 0, 1);
	heatmap_finish(&hm);
	membuf_init(&out);
	emit_heatmap(&hm, NULL, &out);
	CHECK(strstr(out.data, "cw=\"2.0000\"") != NULL);
	CHECK(strstr(out.data, ">00:01:00</text>") != NULL);	/* 60 s steps at 2 px */
	CHECK(strstr(out.data, ">00:00:30</text>") == NULL);
	CHECK(strstr(out.data, ">01:00:00</text>") != NULL);
	membuf_free(&out);
	heatmap_free(&hm);
}

/* The heat map's flame graph colours a frame as the flame graph SVG does. */
static void
test_colours_shared(void)
{
	struct heatmap		hm;
	struct flame_tree	*t = flame_tree_new();
	const char		*path[] = { "app", "[t] app", "main", "spin" };
	struct membuf		hsvg, fsvg;
	char			*cols, want[64], *fill;
	unsigned		r, g, b;
	int			i;

	small_map(&hm);
	membuf_init(&hsvg);
	membuf_init(&fsvg);
	emit_heatmap(&hm, NULL, &hsvg);
	cols = between(hsvg.data, "<sp:colours all=\"", "</sp:colours>");
	CHECK(cols != NULL);
	/* "all" in grey (H), then one per frame: app (P), [t] app (T), main, spin (A) ... */
	{
		struct rgb	c[5] = { frame_colour('H', "all"), frame_colour('P', "app"),
					 frame_colour('T', "[t] app"), frame_colour('A', "main"),
					 frame_colour('A', "spin") };
		char		*p = want;

		p += sprintf(p, "%02x%02x%02x\">", c[0].r, c[0].g, c[0].b);
		for (i = 1; i < 5; i++)
			p += sprintf(p, "%s%02x%02x%02x", i > 1 ? " " : "", c[i].r, c[i].g, c[i].b);
		CHECK(cols != NULL && strncmp(cols, want, strlen(want)) == 0);
	}
	CHECK(cols != NULL && strlen(cols) == 8 + 6 * 7 - 1);	/* six frames */
	/* the flame graph SVG of the same stack fills "main" with that colour */
	flame_tree_add(t, path, 4, 1, 1);
	flame_tree_finish(t);
	emit_svg(t, NULL, &fsvg);
	fill = strstr(fsvg.data, "<title>main (");
	CHECK(fill != NULL && (fill = strstr(fill, "fill=\"rgb(")) != NULL &&
	      sscanf(fill, "fill=\"rgb(%u,%u,%u)", &r, &g, &b) == 3);
	snprintf(want, sizeof(want), "%02x%02x%02x", r, g, b);
	CHECK(cols != NULL && strstr(cols, want) == cols + 8 + 7 * 2);
	free(cols);
	flame_tree_free(t);
	membuf_free(&hsvg);
	membuf_free(&fsvg);
	heatmap_free(&hm);
}

/*
 * A busy 2-CPU host at 99 Hz: 20 ms cells hold 2 to 5 samples, most of
 * them 4.  A linear scale drew nearly all in the maximum's colour and
 * left the ramp's first quarter empty; here the four counts get one
 * shade in each quarter of the ramp, the maximum the darkest.  With many
 * distinct counts shades go by the cells' percentile.
 */
static void
test_busy_scale(void)
{
	static const uint64_t	mix[20] = { 2, 3, 3, 3, 3, 4, 4, 4, 4, 4,
					    4, 4, 4, 4, 4, 4, 4, 4, 4, 5 };
	struct heatmap		hm;
	struct heatmap_scale	sc;
	struct membuf		out;
	unsigned char		*px;
	unsigned		w, h, i, seen[64] = { 0 }, bands = 0;
	int64_t			sec;

	heatmap_init(&hm, 50);
	for (sec = 0; sec < 20; sec++)
		for (i = 0; i < 50; i++)
			heatmap_add_cell(&hm, 1000 + sec, i, mix[(sec * 7 + i) % 20]);
	heatmap_finish(&hm);
	CHECK_INT(heatmap_scale_make(&sc, &hm, 32), 0);
	CHECK_INT(sc.n, 4);
	CHECK_INT(heatmap_scale_shade(&sc, 2), 0);
	CHECK_INT(heatmap_scale_shade(&sc, 3), 10);
	CHECK_INT(heatmap_scale_shade(&sc, 4), 21);
	CHECK_INT(heatmap_scale_shade(&sc, 5), 31);
	CHECK_INT(heatmap_scale_shade(&sc, 1000), 31);	/* past the data: the darkest */
	CHECK_INT(heatmap_scale_value_at(&sc, 31), 5);
	heatmap_scale_free(&sc);
	membuf_init(&out);
	CHECK_INT(emit_heatmap(&hm, NULL, &out), 0);
	px = decode_png(out.data, &w, &h);
	CHECK(px != NULL && w == 20 && h == 50);
	for (i = 0; px && i < w * h; i++)
		if (px[i] < 64 && !seen[px[i]]++)
			bands++;
	CHECK_INT(bands, 4);
	CHECK(strstr(out.data, "shades by rank") != NULL);
	free(px);
	membuf_free(&out);
	heatmap_free(&hm);
	/* 1..100, 1 in half the cells: by percentile, 1 lightest, 2 a third
	 * of the way (mid-ranks 0.2525, 0.5075, stretched up to 100's 0.9975),
	 * 51 two thirds, 100 darkest: linear would put 2 and 51 at 0 and 15 */
	heatmap_init(&hm, 50);
	for (sec = 0; sec < 4; sec++)
		for (i = 0; i < 50; i++)
			heatmap_add_cell(&hm, 1000 + sec, i, (sec * 50 + i) % 2 ? 1 : (sec * 50 + i) / 2 + 1);
	heatmap_finish(&hm);
	CHECK_INT(heatmap_scale_make(&sc, &hm, 32), 0);
	CHECK_INT(sc.n, 100);
	CHECK_INT(heatmap_scale_shade(&sc, 1), 0);
	CHECK_INT(heatmap_scale_shade(&sc, 2), 11);
	CHECK_INT(heatmap_scale_shade(&sc, 51), 21);
	CHECK_INT(heatmap_scale_shade(&sc, 100), 31);
	heatmap_scale_free(&sc);
	heatmap_free(&hm);
}

int
main(void)
{
	test_embedded_data();
	test_png_cells();
	test_deterministic();
	test_empty();
	test_wide_axis();
	test_colours_shared();
	test_busy_scale();
	return unit_report("test_heatmap_emit");
}
