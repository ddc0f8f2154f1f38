/* jpeg_calls - images compressed with jpeg_write_scanlines and decompressed with
 * jpeg_read_scanlines (libjpeg62-turbo), for the accuracy harness (bench/accuracy/run.py).
 *
 *   jpeg_calls CASE...        CASE = WxHxC:CL:DL:S:BUF
 *
 * For each case: an image W pixels wide, H high, of C components (1: grayscale, 3: RGB)
 * is compressed (quality 85) into the file jpeg_calls.jpg of the current directory, CL
 * rows per jpeg_write_scanlines call, from a strip the program allocated (one block of
 * CL rows and one block of CL row pointers: a JSAMPARRAY).  Before every call the strip
 * gets the image's next rows, new pseudo-random pixels.  Then the file is decompressed
 * at scale 1/S (S = 1, 2, 4 or 8), at most DL rows per jpeg_read_scanlines call, into a
 * strip of DL rows: BUF = app (allocated by the program as above) or pool (by libjpeg's
 * alloc_sarray, as djpeg does).  The compressed stream goes through a FILE (libjpeg's stdio
 * destination and source, as cjpeg and djpeg use): it never passes through the program's
 * memory.  The compress and decompress objects are locals (on the stack).  Prints a line
 * per case, "case CASE FIRST COUNT" (the number of its first jpeg_write_scanlines or
 * jpeg_read_scanlines call, from 0, and how many it made), then a checksum of every
 * decompressed row; the calls and their data are the same on every run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#define FILE_NAME "jpeg_calls.jpg"

static uint64_t state = 0x452821e638d01377ull;
static uint64_t checksum;
static long calls;	/* jpeg_write_scanlines and jpeg_read_scanlines calls made */

static void die(const char *what)
{
	fprintf(stderr, "jpeg_calls: %s\n", what);
	exit(1);
}

static void *alloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static unsigned noise(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return (unsigned)((state * 0x2545f4914f6cdd1dull) >> 58);	/* 0..63 */
}

/* row Y of the image: a gradient with noise on it, new values every time */
static void produce_row(JSAMPROW row, int y, int w, int c)
{
	for (int x = 0; x < w; x++)
		for (int i = 0; i < c; i++)
			row[x * c + i] = (JSAMPLE)((x * 3 + y * 2 + i * 60) % 192 + noise());
}

static __attribute__((noinline)) void compress(int w, int h, int c, int lines)
{
	struct jpeg_compress_struct cinfo;
	struct jpeg_error_mgr jerr;
	FILE *f = fopen(FILE_NAME, "wb");
	if (!f)
		die("cannot write " FILE_NAME);

	cinfo.err = jpeg_std_error(&jerr);
	jpeg_create_compress(&cinfo);
	jpeg_stdio_dest(&cinfo, f);
	cinfo.image_width = (JDIMENSION)w;
	cinfo.image_height = (JDIMENSION)h;
	cinfo.input_components = c;
	cinfo.in_color_space = c == 1 ? JCS_GRAYSCALE : JCS_RGB;
	jpeg_set_defaults(&cinfo);
	jpeg_set_quality(&cinfo, 85, TRUE);
	jpeg_start_compress(&cinfo, TRUE);

	JSAMPLE *pixels = alloc((size_t)lines * w * c);
	JSAMPARRAY rows = alloc((size_t)lines * sizeof(JSAMPROW));
	for (int i = 0; i < lines; i++)
		rows[i] = pixels + (size_t)i * w * c;
	while (cinfo.next_scanline < cinfo.image_height) {
		int y = (int)cinfo.next_scanline, n = h - y < lines ? h - y : lines;
		for (int i = 0; i < n; i++)
			produce_row(rows[i], y + i, w, c);
		calls++;
		if (jpeg_write_scanlines(&cinfo, rows, (JDIMENSION)n) == 0)
			die("jpeg_write_scanlines wrote nothing");
	}
	jpeg_finish_compress(&cinfo);
	jpeg_destroy_compress(&cinfo);
	fclose(f);
	free(rows);
	free(pixels);
}

static __attribute__((noinline)) void decompress(int lines, int scale, int pool)
{
	struct jpeg_decompress_struct dinfo;
	struct jpeg_error_mgr jerr;
	FILE *f = fopen(FILE_NAME, "rb");
	if (!f)
		die("cannot read " FILE_NAME);

	dinfo.err = jpeg_std_error(&jerr);
	jpeg_create_decompress(&dinfo);
	jpeg_stdio_src(&dinfo, f);
	jpeg_read_header(&dinfo, TRUE);
	dinfo.scale_num = 1;
	dinfo.scale_denom = (unsigned)scale;
	jpeg_start_decompress(&dinfo);

	size_t stride = (size_t)dinfo.output_width * dinfo.output_components;
	JSAMPLE *pixels = NULL;
	JSAMPARRAY rows;
	if (pool) {
		rows = (*dinfo.mem->alloc_sarray)((j_common_ptr)&dinfo, JPOOL_IMAGE, (JDIMENSION)stride,
						  (JDIMENSION)lines);
	} else {
		pixels = alloc((size_t)lines * stride);
		rows = alloc((size_t)lines * sizeof(JSAMPROW));
		for (int i = 0; i < lines; i++)
			rows[i] = pixels + (size_t)i * stride;
	}
	while (dinfo.output_scanline < dinfo.output_height) {
		calls++;
		JDIMENSION n = jpeg_read_scanlines(&dinfo, rows, (JDIMENSION)lines);
		for (JDIMENSION i = 0; i < n; i++)
			for (size_t x = 0; x < stride; x++)
				checksum = checksum * 31 + rows[i][x];
	}
	jpeg_finish_decompress(&dinfo);
	jpeg_destroy_decompress(&dinfo);
	fclose(f);
	if (!pool) {
		free(rows);
		free(pixels);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s WxHxC:CL:DL:S:app|pool...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		int w, h, c, cl, dl, s;
		char buf[8];
		if (sscanf(argv[i], "%dx%dx%d:%d:%d:%d:%7s", &w, &h, &c, &cl, &dl, &s, buf) != 7
		    || w < 1 || h < 1 || w > 16384 || h > 16384 || (c != 1 && c != 3) || cl < 1 || dl < 1
		    || (s != 1 && s != 2 && s != 4 && s != 8) || (strcmp(buf, "app") && strcmp(buf, "pool"))) {
			fprintf(stderr, "jpeg_calls: bad case '%s' (WxHxC:CL:DL:S:app|pool)\n", argv[i]);
			return 2;
		}
		long first = calls;
		compress(w, h, c, cl);
		decompress(dl, s, buf[0] == 'p');
		printf("case %s %ld %ld\n", argv[i], first, calls - first);
	}
	printf("images=%d checksum=%llu\n", argc - 1, (unsigned long long)checksum);
	return 0;
}
