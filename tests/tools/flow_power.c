/* flow_power.c - a power iteration over the reference BLAS, for dyl-flow's end-to-end
 * test: the program fills an N x N matrix once; each of ITERS steps is dgemv_ (y = A x)
 * then dnrm2_ (|y|), and the program scales x = y / |y| itself.  So every dgemv_ reads
 * the whole matrix again: its bytes grow with the steps, its unique bytes stay N*N*8. */
#include <stdio.h>
#include <stdlib.h>
#include "blas.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64, iters = argc > 2 ? atoi(argv[2]) : 10, one = 1;
	double *a = malloc((size_t)n * n * sizeof(double));
	double *x = malloc((size_t)n * sizeof(double));
	double *y = malloc((size_t)n * sizeof(double));
	double alpha = 1, beta = 0, norm = 0;

	for (int i = 0; i < n * n; i++)
		a[i] = 1.0 / (1 + i % 7);
	for (int i = 0; i < n; i++)
		x[i] = 1;
	for (int k = 0; k < iters; k++) {
		dgemv_("N", &n, &n, &alpha, a, &n, x, &one, &beta, y, &one, 1);
		norm = dnrm2_(&n, y, &one);
		for (int i = 0; i < n; i++)
			x[i] = y[i] / norm;
	}
	printf("%.6f\n", norm);
	free(a);
	free(x);
	free(y);
	return 0;
}
