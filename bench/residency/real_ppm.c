/* real_ppm.c - writes a W x H binary PPM (P6, maxval 255) to stdout: gradients with
 * pseudo-random noise, so that libjpeg has something to compress (a plain gradient
 * compresses to almost nothing).  The same bytes on any machine.
 *
 *   real_ppm W H > image.ppm
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long w = argc > 1 ? atol(argv[1]) : 2048, h = argc > 2 ? atol(argv[2]) : 2048;
	if (w <= 0 || h <= 0 || w > 65500 || h > 65500) {
		fprintf(stderr, "usage: real_ppm W H\n");
		return 2;
	}
	unsigned char *row = malloc((size_t)w * 3);
	if (!row)
		return 1;
	printf("P6\n%ld %ld\n255\n", w, h);
	for (long y = 0; y < h; y++) {
		for (long x = 0; x < w; x++) {
			uint32_t n = (uint32_t)((uint64_t)(x * 2654435761u + y * 40503u) * 2246822519u >> 13) & 63;
			int r = (int)(x * 255 / w) + n / 2, g = (int)(y * 255 / h) + n / 3, b = (int)((x ^ y) & 127) + n;
			row[x * 3] = (unsigned char)(r > 255 ? 255 : r);
			row[x * 3 + 1] = (unsigned char)(g > 255 ? 255 : g);
			row[x * 3 + 2] = (unsigned char)(b > 255 ? 255 : b);
		}
		if (fwrite(row, 3, (size_t)w, stdout) != (size_t)w)
			return 1;
	}
	free(row);
	return 0;
}
