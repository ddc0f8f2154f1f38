/* flow_jpeg.c - compresses an image with libjpeg into memory and decompresses it again,
 * for dyl-flow's real-library example (tests/tools/test_flow_real.py).
 *
 *   flow_jpeg [W H [ROWS]]        (default 64 48 8)
 *
 * The program draws a W x H RGB image in one heap block, hands it to jpeg_write_scanlines
 * ROWS rows a call (an array of ROWS row pointers on the stack), the compressed data
 * going to a buffer libjpeg allocates (jpeg_mem_dest).  It then reads the data back with
 * jpeg_read_scanlines, ROWS rows a call, into a second heap block, and prints the
 * compressed size and a checksum of the decoded pixels.
 *
 * Build: cc -O2 -g -o flow_jpeg flow_jpeg.c -ljpeg
 */
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

enum { MAXROWS = 64 };

int main(int argc, char **argv)
{
	int w = argc > 2 ? atoi(argv[1]) : 64, h = argc > 2 ? atoi(argv[2]) : 48;
	int rows = argc > 3 ? atoi(argv[3]) : 8;
	if (w < 1 || h < 1 || rows < 1 || rows > MAXROWS) {
		fprintf(stderr, "usage: flow_jpeg [W H [ROWS]]\n");
		return 2;
	}
	size_t stride = (size_t)w * 3;
	unsigned char *img = malloc(stride * h);	/* SITE IMG */
	unsigned char *out = malloc(stride * h);	/* SITE OUT */
	if (!img || !out)
		return 1;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			unsigned char *p = img + y * stride + x * 3;
			p[0] = (unsigned char)(x * 255 / w);
			p[1] = (unsigned char)(y * 255 / h);
			p[2] = (unsigned char)((x + y) * 4);
		}

	struct jpeg_compress_struct c;
	struct jpeg_error_mgr cerr;
	unsigned char *jpg = NULL;
	unsigned long jpg_size = 0;
	JSAMPROW rowp[MAXROWS];

	c.err = jpeg_std_error(&cerr);
	jpeg_create_compress(&c);
	jpeg_mem_dest(&c, &jpg, &jpg_size);
	c.image_width = (JDIMENSION)w;
	c.image_height = (JDIMENSION)h;
	c.input_components = 3;
	c.in_color_space = JCS_RGB;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, 90, TRUE);
	jpeg_start_compress(&c, TRUE);
	while (c.next_scanline < c.image_height) {
		int n = 0;
		for (; n < rows && c.next_scanline + n < c.image_height; n++)
			rowp[n] = img + (c.next_scanline + n) * stride;
		jpeg_write_scanlines(&c, rowp, (JDIMENSION)n);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	printf("compressed %dx%d to %lu bytes\n", w, h, jpg_size);

	struct jpeg_decompress_struct d;
	struct jpeg_error_mgr derr;
	d.err = jpeg_std_error(&derr);
	jpeg_create_decompress(&d);
	jpeg_mem_src(&d, jpg, jpg_size);
	jpeg_read_header(&d, TRUE);
	jpeg_start_decompress(&d);
	while (d.output_scanline < d.output_height) {
		for (int n = 0; n < rows; n++)
			rowp[n] = out + (d.output_scanline + n < d.output_height
					 ? d.output_scanline + n : d.output_height - 1) * stride;
		jpeg_read_scanlines(&d, rowp, (JDIMENSION)rows);
	}
	jpeg_finish_decompress(&d);
	jpeg_destroy_decompress(&d);

	unsigned long sum = 0;
	for (size_t i = 0; i < stride * h; i++)
		sum = sum * 31 + out[i];
	printf("decompressed %ux%u, checksum %lu\n", d.output_width, d.output_height, sum);
	free(jpg);
	free(img);
	free(out);
	return 0;
}
