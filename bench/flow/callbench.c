/* callbench - N calls with 1, 3 or 10 pointers into distinct heap blocks (1 KiB each);
 * prints the loop's CPU time per call.   callbench 1|3|10 N */
#include <stdio.h>
#include <stdlib.h>
#include "../cputime.h"
#include "ptrs.h"

int main(int argc, char **argv)
{
	int k = atoi(argv[1]);
	long n = atol(argv[2]), s = 0;
	double *b[10];

	for (int i = 0; i < 10; i++) {
		b[i] = malloc(1024);
		b[i][0] = i;
	}
	double t0 = cpu_ns();
	for (long i = 0; i < n; i++)
		s += k == 1 ? p1(b[0]) : k == 3 ? p3(b[0], b[1], b[2])
			: p10(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9]);
	printf("cpu_ns_per_call %.2f\n", (cpu_ns() - t0) / (double)n);
	return s == 42;
}
