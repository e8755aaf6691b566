/*
 * pngpixels FILE.png: what a screenshot shows, counted (tests only). The
 * browser tests take chromium's --screenshot of a page and judge its
 * pixels, not its DOM, so that a graph that is in the DOM but not on the
 * screen (a blank page) fails them. Prints one line:
 *
 *   WIDTHxHEIGHT warm=N match=N
 *
 * warm: pixels of a flame graph's frames (flamegraph.pl's hot palette:
 * red to yellow, r >= 150 and r - b >= 100; the background, #eeeeee to
 * #eeeeb0, and black or white text are not); match: pixels of the colour
 * a search paints its matches, rgb(230,0,230), give or take 12.
 * With a second argument RRGGBB (hex), also " colour=N": the pixels of
 * that colour, give or take 12 a channel (a chart's marks).
 * Reads 8-bit greyscale, RGB and RGBA PNGs, not interlaced (what chromium
 * writes). Exit 1 naming the file if it is not one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static int bad(const char *file, const char *why)
{
	fprintf(stderr, "pngpixels: %s: %s\n", file, why);
	return 1;
}

int main(int argc, char **argv)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	unsigned char *f = NULL, *z = NULL, *raw = NULL;
	size_t n = 0, cap = 0, zn = 0, off = 8;
	uint32_t w = 0, h = 0, bpp = 0;
	unsigned long warm = 0, match = 0, colour = 0;
	long want = -1;
	char *end;
	FILE *fp;

	if (argc == 3) {
		want = strtol(argv[2], &end, 16);
		if (*end || end - argv[2] != 6)
			want = -2;
	}
	if ((argc != 2 && argc != 3) || want == -2) {
		fprintf(stderr, "usage: pngpixels file.png [RRGGBB]\n");
		return 2;
	}
	if (!(fp = fopen(argv[1], "rb")))
		return bad(argv[1], "cannot open");
	for (;;) {
		if (n == cap && !(f = realloc(f, cap = cap ? 2 * cap : 1 << 16)))
			return bad(argv[1], "out of memory");
		size_t r = fread(f + n, 1, cap - n, fp);

		if (!r)
			break;
		n += r;
	}
	fclose(fp);
	if (n < 8 || memcmp(f, sig, 8))
		return bad(argv[1], "not a PNG");
	if (!(z = malloc(n)))
		return bad(argv[1], "out of memory");
	while (off + 12 <= n) {
		uint32_t len = be32(f + off);
		const unsigned char *type = f + off + 4, *d = f + off + 8;

		if (len > n - off - 12)
			return bad(argv[1], "truncated chunk");
		if (!memcmp(type, "IHDR", 4)) {
			if (len < 13 || d[8] != 8 || d[12] != 0 || (d[9] != 0 && d[9] != 2 && d[9] != 6))
				return bad(argv[1], "not an 8-bit grey, RGB or RGBA PNG without interlace");
			w = be32(d);
			h = be32(d + 4);
			bpp = d[9] == 0 ? 1 : d[9] == 2 ? 3 : 4;
		} else if (!memcmp(type, "IDAT", 4)) {
			memcpy(z + zn, d, len);
			zn += len;
		} else if (!memcmp(type, "IEND", 4)) {
			break;
		}
		off += 12 + (size_t)len;
	}
	if (!w || !h || w > 1 << 15 || h > 1 << 15)
		return bad(argv[1], "no image header or an absurd size");
	uLongf rn = (uLongf)(w * bpp + 1) * h;

	if (!(raw = malloc(rn)) || uncompress(raw, &rn, z, zn) != Z_OK || rn != (uLongf)(w * bpp + 1) * h)
		return bad(argv[1], "corrupt image data");
	size_t stride = (size_t)w * bpp;

	for (uint32_t y = 0; y < h; y++) {
		unsigned char *row = raw + y * (stride + 1), *px = row + 1;
		const unsigned char *up = y ? raw + (y - 1) * (stride + 1) + 1 : NULL;

		for (size_t i = 0; i < stride; i++) {
			int a = i >= bpp ? px[i - bpp] : 0, b = up ? up[i] : 0;
			int c = up && i >= bpp ? up[i - bpp] : 0;

			switch (row[0]) {
			case 0: break;
			case 1: px[i] += a; break;
			case 2: px[i] += b; break;
			case 3: px[i] += (a + b) / 2; break;
			case 4: px[i] += paeth(a, b, c); break;
			default: return bad(argv[1], "bad row filter");
			}
		}
		for (uint32_t x = 0; x < w; x++) {
			const unsigned char *p = px + x * bpp;
			int r = p[0], g = bpp >= 3 ? p[1] : r, bl = bpp >= 3 ? p[2] : r;

			if (r >= 150 && r - bl >= 100)
				warm++;
			if (abs(r - 230) <= 12 && g <= 30 && abs(bl - 230) <= 12)
				match++;
			if (want >= 0 && abs(r - (int)(want >> 16)) <= 12 &&
			    abs(g - (int)(want >> 8 & 255)) <= 12 && abs(bl - (int)(want & 255)) <= 12)
				colour++;
		}
	}
	if (want >= 0)
		printf("%ux%u warm=%lu match=%lu colour=%lu\n", w, h, warm, match, colour);
	else
		printf("%ux%u warm=%lu match=%lu\n", w, h, warm, match);
	free(f);
	free(z);
	free(raw);
	return 0;
}
