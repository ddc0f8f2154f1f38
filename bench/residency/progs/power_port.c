/* power_port.c - (a) power iteration ported by hand onto fakedev, as a careful port is
 * written: A moves to the device once; each step x goes in (the program wrote it), y
 * comes back (the program reads it).  Prints what power_plain.c prints. */
#include <math.h>
#include "fakedev.h"
#include "progs.h"

int main(int argc, char **argv)
{
	int n = arg(argc, argv, 1, 512), iters = arg(argc, argv, 2, 10);
	size_t nn = (size_t)n * n * sizeof(double), nv = (size_t)n * sizeof(double);
	double *a = pages_of_doubles((size_t)n * n), *x = pages_of_doubles((size_t)n);
	double *y = pages_of_doubles((size_t)n), norm = 0;
	double *da = fd_malloc(nn), *dx = fd_malloc(nv), *dy = fd_malloc(nv);

	fill(a, (size_t)n * n, 0);
	for (int i = 0; i < n; i++)
		x[i] = 1;
	fd_h2d(da, a, nn);
	for (int k = 0; k < iters; k++) {
		fd_h2d(dx, x, nv);
		fd_dgemv('N', n, n, 1, da, n, dx, 1, 0, dy, 1);
		fd_d2h(y, dy, nv);
		norm = 0;
		for (int i = 0; i < n; i++)
			norm += y[i] * y[i];
		norm = sqrt(norm);
		for (int i = 0; i < n; i++)
			x[i] = y[i] / norm;
	}
	printf("power: n %d iters %d eigenvalue %.9f x0 %.9f\n", n, iters, norm, x[0]);
	fd_free(da);
	fd_free(dx);
	fd_free(dy);
	free(a);
	free(x);
	free(y);
	return 0;
}
