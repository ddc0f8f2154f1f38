/* pipe_plain.c - (b) a pipeline of two calls: C = A B, then E = C D (dgemm_ each); the
 * program reads only E.  A careful port moves A, B and D in, E out; C, the intermediate,
 * never leaves the device: pipe_port.c.  Usage: pipe_plain [N] */
#include "progs.h"

int main(int argc, char **argv)
{
	int n = arg(argc, argv, 1, 128);
	size_t nn = (size_t)n * n;
	double *a = pages_of_doubles(nn), *b = pages_of_doubles(nn), *c = pages_of_doubles(nn);
	double *d = pages_of_doubles(nn), *e = pages_of_doubles(nn), one = 1, zero = 0;

	fill(a, nn, 1);
	fill(b, nn, 2);
	fill(d, nn, 3);
	dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
	dgemm_("N", "N", &n, &n, &n, &one, c, &n, d, &n, &zero, e, &n, 1, 1);
	printf("pipe: n %d sum(E) %.6f E[0] %.9f\n", n, sum(e, nn), e[0]);
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
	return 0;
}
