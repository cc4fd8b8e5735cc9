/*
 * heatmap_png.c - minimal PNG writer: palette colour, zlib "stored" blocks
 * (no compression library needed), then base64.
 */
#include <stdlib.h>
#include <string.h>
#include "heatmap_png.h"

static uint32_t
crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	static uint32_t	table[256];
	static int	ready;
	uint32_t	c;
	unsigned	i, k;

	if (!ready) {
		for (i = 0; i < 256; i++) {
			for (c = i, k = 0; k < 8; k++)
				c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
		ready = 1;
	}
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void
put_be32(struct membuf *b, uint32_t v)
{
	uint8_t	x[4] = { v >> 24, v >> 16, v >> 8, v };

	membuf_append(b, x, 4);
}

/* One chunk: length, type, data, CRC over type and data. */
static void
put_chunk(struct membuf *b, const char *type, const uint8_t *data, size_t len)
{
	uint32_t	crc;

	put_be32(b, (uint32_t)len);
	membuf_append(b, type, 4);
	if (len)
		membuf_append(b, data, len);
	crc = crc32_update(0, (const uint8_t *)type, 4);
	put_be32(b, crc32_update(crc, data, len));
}

/* zlib stream of stored deflate blocks holding raw. */
static void
zlib_stored(struct membuf *z, const uint8_t *raw, size_t len)
{
	uint32_t	a = 1, b = 0;
	size_t		i, off = 0;

	membuf_append(z, "\x78\x01", 2);
	do {
		size_t	n = len - off > 65535 ? 65535 : len - off;
		uint8_t	hdr[5] = { off + n == len, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff };

		membuf_append(z, hdr, 5);
		membuf_append(z, raw + off, n);
		off += n;
	} while (off < len);
	for (i = 0; i < len; i++) {
		a = (a + raw[i]) % 65521;
		b = (b + a) % 65521;
	}
	put_be32(z, b << 16 | a);
}

static void
base64(struct membuf *out, const uint8_t *p, size_t n)
{
	static const char	digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char			q[4];
	size_t			i;

	for (i = 0; i + 2 < n; i += 3) {
		q[0] = digits[p[i] >> 2];
		q[1] = digits[(p[i] & 3) << 4 | p[i + 1] >> 4];
		q[2] = digits[(p[i + 1] & 15) << 2 | p[i + 2] >> 6];
		q[3] = digits[p[i + 2] & 63];
		membuf_append(out, q, 4);
	}
	if (i < n) {
		q[0] = digits[p[i] >> 2];
		q[1] = digits[(p[i] & 3) << 4 | (i + 1 < n ? p[i + 1] >> 4 : 0)];
		q[2] = i + 1 < n ? digits[(p[i + 1] & 15) << 2] : '=';
		q[3] = '=';
		membuf_append(out, q, 4);
	}
}

void
heatmap_png_base64(struct membuf *out, const uint8_t *pixels, unsigned w, unsigned h,
		   const uint8_t (*palette)[3], unsigned npal)
{
	static const uint8_t	sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	struct membuf		png, raw, z;
	uint8_t			ihdr[13];
	unsigned		y;

	membuf_init(&png);
	membuf_init(&raw);
	membuf_init(&z);
	membuf_append(&png, sig, 8);
	ihdr[0] = w >> 24; ihdr[1] = w >> 16; ihdr[2] = w >> 8; ihdr[3] = w;
	ihdr[4] = h >> 24; ihdr[5] = h >> 16; ihdr[6] = h >> 8; ihdr[7] = h;
	ihdr[8] = 8;		/* bits per pixel */
	ihdr[9] = 3;		/* palette colour */
	ihdr[10] = ihdr[11] = ihdr[12] = 0;
	put_chunk(&png, "IHDR", ihdr, sizeof(ihdr));
	put_chunk(&png, "PLTE", (const uint8_t *)palette, npal * 3);
	for (y = 0; y < h; y++) {
		membuf_append(&raw, "", 1);	/* filter type 0: none */
		membuf_append(&raw, pixels + (size_t)y * w, w);
	}
	zlib_stored(&z, (const uint8_t *)raw.data, raw.len);
	put_chunk(&png, "IDAT", (const uint8_t *)z.data, z.len);
	put_chunk(&png, "IEND", NULL, 0);
	if (png.failed || raw.failed || z.failed)
		out->failed = 1;
	else
		base64(out, (const uint8_t *)png.data, png.len);
	membuf_free(&png);
	membuf_free(&raw);
	membuf_free(&z);
}
