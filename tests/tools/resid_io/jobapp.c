/* jobapp.c - jobapp STEPS: STEPS x job_run over a 256 KiB block (glibc maps it by itself: it owns its
 * pages), each followed by the program's read of one double in the middle of it: one
 * page of it comes back each step, nothing else.  jobapp STEPS sum: the program fills a
 * 32 KiB block, then STEPS x job_sum of it, rewriting the next 1 KiB of it before each
 * call after the first (test_resid_io.py). */
#include <stdio.h>
#include <stdlib.h>
#include "job.h"

enum { N = 32768 };

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 3;
	struct job j = { malloc(N * sizeof(double)), N };
	double sum = 0;

	if (!j.out)
		return 1;
	if (argc > 2) {	/* sum */
		j.n = 4096;
		for (long i = 0; i < j.n; i++)
			j.out[i] = 1;
		for (int s = 0; s < steps; s++) {
			for (long i = 128L * s; s && i < 128L * (s + 1) && i < j.n; i++)
				j.out[i] = s + 0.5;	/* (never what was there) */
			sum += job_sum(&j);
		}
		printf("%.1f\n", sum);
		free(j.out);
		return 0;
	}
	for (int s = 0; s < steps; s++) {
		job_run(&j, s);
		sum += j.out[N / 2];
	}
	printf("%.1f\n", sum);
	free(j.out);
	return 0;
}
