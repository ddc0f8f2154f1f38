/* hostreads.c - what std.flow:host_reads costs: ITERS times, a call (hr_fill) writes a
 * block of MIB MiB, then the program reads all of it ("read": a fault a page under
 * host_reads) or none of it ("never").  Prints the CPU time of the loop (getrusage,
 * the process: the faults' handler and the wrapper's mprotects included) per iteration.
 *   hostreads read|never MIB ITERS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "hr.h"

static double cpu_ms(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	int rd = !strcmp(argv[1], "read");
	long n = atol(argv[2]) * (1L << 20) / (long)sizeof(double), iters = atol(argv[3]);
	double *a = malloc(n * sizeof(double)), s = 0;
	if (!a)
		return 1;
	hr_fill(a, n, 0);	/* (first touch of the block: not in the loop) */
	double t0 = cpu_ms();
	for (long it = 0; it < iters; it++) {
		hr_fill(a, n, (double)it);
		if (rd)
			for (long i = 0; i < n; i++)
				s += a[i];
		hr_tick((int)it);
	}
	double t = cpu_ms() - t0;
	printf("sum %g\ncpu_ms_per_iter %.3f\n", s, t / iters);
	free(a);
	return 0;
}
