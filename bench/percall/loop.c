/* loop N: calls nop() N times through the PLT; prints the CPU time of the loop alone
 * (user+sys, ns per call) so that start-up and trace writing at exit are left out. */
#include <stdio.h>
#include <stdlib.h>
#include "../cputime.h"
#include "nop.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000L;
	int x = 0;
	double t0 = cpu_ns();
	for (long i = 0; i < n; i++)
		x = nop(x);
	double t1 = cpu_ns();
	fprintf(stderr, "loop_ns_per_call %.2f\n", (t1 - t0) / n);
	printf("%d\n", x);
	return 0;
}
