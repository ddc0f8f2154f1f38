/* copybench.c - a copy benchmark for dyl-model --link: REPS copies each way through
 * fakedev's fd_h2d and fd_d2h at every size from MIN to MAX bytes (doubling).  Traced
 * with a wrapper of libfakedev.so whose work is the bytes moved
 * (bench/residency/fakedev/fakedev.defs), the trace gives a link model:
 *   dyl-model --link h2d=fd_h2d --link d2h=fd_d2h trace.csv > link.csv
 * Under FAKEDEV_LINK=MODEL each copy takes the model's time, so the model made from the
 * trace gives back MODEL (plus the copy's own time).
 * Usage: copybench [REPS [MIN [MAX]]]  (default 5, 1 KiB, 64 MiB) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fakedev.h"

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	size_t lo = argc > 2 ? strtoull(argv[2], NULL, 0) : 1024;
	size_t hi = argc > 3 ? strtoull(argv[3], NULL, 0) : 64u << 20;
	char *host = malloc(hi), *dev = fd_malloc(hi);
	struct fd_counts c;

	if (!host || !dev || !lo || lo > hi) {
		fprintf(stderr, "copybench: bad sizes or out of memory\n");
		return 2;
	}
	memset(host, 1, hi);
	for (size_t b = lo; b <= hi; b *= 2)
		for (int r = 0; r < reps; r++)
			if (fd_h2d(dev, host, b) != 0 || fd_d2h(host, dev, b) != 0)
				return 1;
	fd_get_counts(&c);
	printf("copybench: %llu copies h2d (%llu bytes), %llu d2h (%llu bytes)\n",
	       (unsigned long long)c.h2d_transfers, (unsigned long long)c.h2d_bytes,
	       (unsigned long long)c.d2h_transfers, (unsigned long long)c.d2h_bytes);
	fd_free(dev);
	free(host);
	return 0;
}
