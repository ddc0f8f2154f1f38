/* diffbench CASE KIB CALLS - the CPU time per call of a loop over one buffer of KIB KiB,
 * and what the program does to it between calls:
 *   same    nothing: peek(buf) again and again (the data stays the same)
 *   sparse  one double changed in every 64th page, then peek(buf)
 *   all     every double changed, then peek(buf) (the program's rewrite is in the loop,
 *           with or without a wrapper: subtract the plain run)
 *   out     poke(buf): the buffer is an output (compared whole after each call)
 * Prints "ns_per_call N" (CPU time of the process, measured around the loop). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../cputime.h"
#include "buf.h"

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: diffbench same|sparse|all|out KIB CALLS\n");
		return 2;
	}
	const char *what = argv[1];
	long n = atol(argv[2]) * 1024 / 8, calls = atol(argv[3]);
	double *buf = malloc(n * sizeof(double)), s = 0;
	for (long i = 0; i < n; i++)
		buf[i] = i + 1;
	peek(buf, n);	/* the first look (the whole buffer is new) is not timed */
	double t0 = cpu_ns();
	for (long c = 0; c < calls; c++) {
		if (!strcmp(what, "sparse")) {
			for (long i = c % 512; i < n; i += 64 * 512)
				buf[i] += 1;
		} else if (!strcmp(what, "all")) {
			for (long i = 0; i < n; i++)
				buf[i] += 1;
		}
		if (!strcmp(what, "out"))
			poke(buf, n);
		else
			s += peek(buf, n);
	}
	double t1 = cpu_ns();
	printf("ns_per_call %.1f\n", (t1 - t0) / calls);
	return s < 0;
}
