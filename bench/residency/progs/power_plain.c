/* power_plain.c - (a) power iteration, plainly on the host BLAS: the N x N matrix is
 * filled once; each of ITERS steps is y = A x (dgemv_), then the program reads y (its
 * norm) and writes x = y / |y|.  A careful port moves A once, x in and y out each step:
 * power_port.c.  Usage: power_plain [N [ITERS]] */
#include <math.h>
#include "progs.h"

int main(int argc, char **argv)
{
	int n = arg(argc, argv, 1, 512), iters = arg(argc, argv, 2, 10), inc = 1;
	double *a = pages_of_doubles((size_t)n * n), *x = pages_of_doubles((size_t)n);
	double *y = pages_of_doubles((size_t)n), one = 1, zero = 0, norm = 0;

	fill(a, (size_t)n * n, 0);
	for (int i = 0; i < n; i++)
		x[i] = 1;
	for (int k = 0; k < iters; k++) {
		dgemv_("N", &n, &n, &one, a, &n, x, &inc, &zero, y, &inc, 1);
		norm = 0;
		for (int i = 0; i < n; i++)
			norm += y[i] * y[i];
		norm = sqrt(norm);
		for (int i = 0; i < n; i++)
			x[i] = y[i] / norm;
	}
	printf("power: n %d iters %d eigenvalue %.9f x0 %.9f\n", n, iters, norm, x[0]);
	free(a);
	free(x);
	free(y);
	return 0;
}
