/* flow_zlib.c - zlib streaming, for dyl-flow's real-library example
 * (tests/tools/test_flow_real.py): deflate then inflate through z_stream, in chunks.
 *
 *   flow_zlib [BYTES [CHUNK]]        (default 100000 4096)
 *
 * The program writes BYTES of text into one heap block, takes its crc32, and deflates
 * it into a second block, handing deflate CHUNK input bytes and CHUNK bytes of output
 * room at a time (next_in, avail_in, next_out, avail_out).  It then inflates that block
 * into a third, CHUNK compressed bytes at a time, and takes the crc32 of the result.
 * The buffers are reached only through the z_stream's fields: std.regions sees the
 * z_stream, not them; examples/zlib.defs gives std.flow the bytes from avail_in and
 * avail_out.
 *
 * Build: cc -O2 -g -o flow_zlib flow_zlib.c -lz
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static size_t min(size_t a, size_t b)
{
	return a < b ? a : b;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	size_t chunk = argc > 2 ? strtoul(argv[2], NULL, 10) : 4096;
	if (n < 1 || chunk < 1) {
		fprintf(stderr, "usage: flow_zlib [BYTES [CHUNK]]\n");
		return 2;
	}
	size_t room = compressBound((uLong)n);
	unsigned char *text = malloc(n);	/* SITE TEXT */
	unsigned char *comp = malloc(room);	/* SITE COMP */
	unsigned char *back = malloc(n);	/* SITE BACK */
	if (!text || !comp || !back)
		return 1;
	for (size_t i = 0; i < n; i++)
		text[i] = "the quick brown fox jumps over the lazy dog "[(i * 7 + i / 97) % 44];
	uLong crc_in = crc32(0L, text, (uInt)n);

	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit(&z, 6) != Z_OK)
		return 1;
	size_t in = 0;
	int ret, calls = 0;
	do {
		z.next_in = text + in;
		z.avail_in = (uInt)min(chunk, n - in);
		in += z.avail_in;
		int flush = in == n ? Z_FINISH : Z_NO_FLUSH;
		do {
			z.next_out = comp + z.total_out;
			z.avail_out = (uInt)min(chunk, room - z.total_out);
			ret = deflate(&z, flush);
			calls++;
		} while (z.avail_out == 0 && ret != Z_STREAM_END);
	} while (in < n);
	size_t clen = z.total_out;
	deflateEnd(&z);
	printf("deflate: %zu bytes to %zu in %d calls (%s)\n", n, clen, calls,
	       ret == Z_STREAM_END ? "end" : "not ended");

	memset(&z, 0, sizeof z);
	if (inflateInit(&z) != Z_OK)
		return 1;
	in = 0;
	calls = 0;
	do {
		z.next_in = comp + in;
		z.avail_in = (uInt)min(chunk, clen - in);
		in += z.avail_in;
		do {
			z.next_out = back + z.total_out;
			z.avail_out = (uInt)min(chunk, n - z.total_out);
			ret = inflate(&z, Z_NO_FLUSH);
			calls++;
		} while (z.avail_out == 0 && ret == Z_OK && z.total_out < n);
	} while (in < clen && ret == Z_OK);
	size_t blen = z.total_out;
	inflateEnd(&z);
	uLong crc_out = crc32(0L, back, (uInt)blen);
	printf("inflate: %zu bytes back in %d calls (%s), crc32 %s\n", blen, calls,
	       ret == Z_STREAM_END ? "end" : "not ended", crc_in == crc_out ? "equal" : "differs");
	free(text);
	free(comp);
	free(back);
	return 0;
}
