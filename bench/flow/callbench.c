/* callbench - N calls with 1, 3 or 10 pointers into distinct heap blocks (1 KiB each),
 * the same blocks every call, or (alt) two sets of blocks in turn: no call makes the
 * same accesses as the one before (std.flow writes such a repeat as one word); prints
 * the loop's CPU time per call.   callbench 1|3|10 N [alt] */
#include <stdio.h>
#include <stdlib.h>
#include "../cputime.h"
#include "ptrs.h"

int main(int argc, char **argv)
{
	int k = atoi(argv[1]), alt = argc > 3;
	long n = atol(argv[2]), s = 0;
	double *sets[2][10];

	for (int j = 0; j < 2; j++)
		for (int i = 0; i < 10; i++) {
			sets[j][i] = malloc(1024);
			sets[j][i][0] = i;
		}
	double t0 = cpu_ns();
	for (long i = 0; i < n; i++) {
		double **b = sets[alt & i];
		s += k == 1 ? p1(b[0]) : k == 3 ? p3(b[0], b[1], b[2])
			: p10(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9]);
	}
	printf("cpu_ns_per_call %.2f\n", (cpu_ns() - t0) / (double)n);
	return s == 42;
}
