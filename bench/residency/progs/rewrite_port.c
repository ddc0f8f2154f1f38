/* rewrite_port.c - (c) the partial rewrite ported by hand onto fakedev: A and x move in
 * once; each step after the first, only the COLS rewritten columns move in again; y
 * comes back each step (the program reads it).  Prints what rewrite_plain.c prints. */
#include "fakedev.h"
#include "progs.h"

static double newval(int step, int i)
{
	return (double)(2 << (step % 8)) * (1.5 + 0x1.1111111111111p-4 * (1 + i % 3));
}

int main(int argc, char **argv)
{
	int n = arg(argc, argv, 1, 512), steps = arg(argc, argv, 2, 8), cols = arg(argc, argv, 3, 8);
	size_t nn = (size_t)n * n, nv = (size_t)n * sizeof(double);
	double *a = pages_of_doubles(nn), *x = pages_of_doubles((size_t)n);
	double *y = pages_of_doubles((size_t)n), total = 0;
	double *da = fd_malloc(nn * sizeof(double)), *dx = fd_malloc(nv), *dy = fd_malloc(nv);

	fill(a, nn, 4);
	fill(x, (size_t)n, 5);
	fd_h2d(da, a, nn * sizeof(double));
	fd_h2d(dx, x, nv);
	for (int s = 0; s < steps; s++) {
		if (s > 0) {
			size_t first = (size_t)((s * cols) % n) * n;
			for (size_t i = 0; i < (size_t)cols * n; i++)
				a[first + i] = newval(s, (int)i);
			fd_h2d(da + first, a + first, (size_t)cols * n * sizeof(double));
		}
		fd_dgemv('N', n, n, 1, da, n, dx, 1, 0, dy, 1);
		fd_d2h(y, dy, nv);
		total += sum(y, (size_t)n);
	}
	printf("rewrite: n %d steps %d cols %d sum %.6f\n", n, steps, cols, total);
	fd_free(da);
	fd_free(dx);
	fd_free(dy);
	free(a);
	free(x);
	free(y);
	return 0;
}
