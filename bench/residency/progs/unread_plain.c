/* unread_plain.c - (d) an output never read: y = A x and z = A w (dgemv_ each); the
 * program prints only y's sum (z was, say, a diagnostic nobody looks at).  A careful port
 * moves A, x and w in and y out; z never comes back: unread_port.c.
 * Usage: unread_plain [N] */
#include "progs.h"

int main(int argc, char **argv)
{
	int n = arg(argc, argv, 1, 512), inc = 1;
	size_t nn = (size_t)n * n;
	double *a = pages_of_doubles(nn), *x = pages_of_doubles((size_t)n);
	double *w = pages_of_doubles((size_t)n), *y = pages_of_doubles((size_t)n);
	double *z = pages_of_doubles((size_t)n), one = 1, zero = 0;

	fill(a, nn, 6);
	fill(x, (size_t)n, 7);
	fill(w, (size_t)n, 8);
	dgemv_("N", &n, &n, &one, a, &n, x, &inc, &zero, y, &inc, 1);
	dgemv_("N", &n, &n, &one, a, &n, w, &inc, &zero, z, &inc, 1);
	printf("unread: n %d sum(y) %.6f\n", n, sum(y, (size_t)n));
	free(a);
	free(x);
	free(w);
	free(y);
	free(z);
	return 0;
}
