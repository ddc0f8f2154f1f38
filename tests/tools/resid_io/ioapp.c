/* ioapp.c - libio's calls send their output themselves (test_resid_io.py).
 *
 *   ioapp STEPS: STEPS x fill_send of a 256 KiB block (each writes all of it, then
 *   write(2)s it: each byte comes back every step on a port), then fill, send_buf of
 *   5,000 of the bytes fill wrote (they come back), and send_file (fwrite) of the first
 *   3,000 (only the first 1,000 were not back yet).  The program never touches the
 *   block itself: nothing else comes back.  Its stdout is the bytes sent. */
#include <stdio.h>
#include <stdlib.h>
#include "io.h"

enum { N = 256 * 1024 };	/* (glibc maps it by itself: it owns its pages) */

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 3;
	unsigned char *buf = malloc(N);

	if (!buf)
		return 1;
	for (int s = 0; s < steps; s++)
		if (fill_send(buf, N, s, 1) != N)
			return 1;
	fill(buf, N, 100);
	if (send_buf(buf + 1000, 5000, 1) != 5000 || send_file(buf, 3000) != 3000)
		return 1;
	free(buf);
	return 0;
}
