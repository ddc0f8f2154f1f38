/* unread_port.c - (d) the output never read, ported by hand onto fakedev: A, x, w in, y
 * out; z stays on the device.  Prints what unread_plain.c prints. */
#include "fakedev.h"
#include "progs.h"

int main(int argc, char **argv)
{
	int n = arg(argc, argv, 1, 512);
	size_t nn = (size_t)n * n, nv = (size_t)n * sizeof(double);
	double *a = pages_of_doubles(nn), *x = pages_of_doubles((size_t)n);
	double *w = pages_of_doubles((size_t)n), *y = pages_of_doubles((size_t)n);
	double *da = fd_malloc(nn * sizeof(double)), *dx = fd_malloc(nv), *dw = fd_malloc(nv);
	double *dy = fd_malloc(nv), *dz = fd_malloc(nv);

	fill(a, nn, 6);
	fill(x, (size_t)n, 7);
	fill(w, (size_t)n, 8);
	fd_h2d(da, a, nn * sizeof(double));
	fd_h2d(dx, x, nv);
	fd_dgemv('N', n, n, 1, da, n, dx, 1, 0, dy, 1);
	fd_h2d(dw, w, nv);
	fd_dgemv('N', n, n, 1, da, n, dw, 1, 0, dz, 1);
	fd_d2h(y, dy, nv);
	printf("unread: n %d sum(y) %.6f\n", n, sum(y, (size_t)n));
	fd_free(da);
	fd_free(dx);
	fd_free(dw);
	fd_free(dy);
	fd_free(dz);
	free(a);
	free(x);
	free(w);
	free(y);
	return 0;
}
