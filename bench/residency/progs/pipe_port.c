/* pipe_port.c - (b) the two-call pipeline ported by hand onto fakedev: A, B, D in, E out;
 * C stays on the device.  Prints what pipe_plain.c prints. */
#include "fakedev.h"
#include "progs.h"

int main(int argc, char **argv)
{
	int n = arg(argc, argv, 1, 128);
	size_t nn = (size_t)n * n, bytes = nn * sizeof(double);
	double *a = pages_of_doubles(nn), *b = pages_of_doubles(nn), *d = pages_of_doubles(nn);
	double *e = pages_of_doubles(nn);
	double *da = fd_malloc(bytes), *db = fd_malloc(bytes), *dc = fd_malloc(bytes);
	double *dd = fd_malloc(bytes), *de = fd_malloc(bytes);

	fill(a, nn, 1);
	fill(b, nn, 2);
	fill(d, nn, 3);
	fd_h2d(da, a, bytes);
	fd_h2d(db, b, bytes);
	fd_dgemm('N', 'N', n, n, n, 1, da, n, db, n, 0, dc, n);
	fd_h2d(dd, d, bytes);
	fd_dgemm('N', 'N', n, n, n, 1, dc, n, dd, n, 0, de, n);
	fd_d2h(e, de, bytes);
	printf("pipe: n %d sum(E) %.6f E[0] %.9f\n", n, sum(e, nn), e[0]);
	fd_free(da);
	fd_free(db);
	fd_free(dc);
	fd_free(dd);
	fd_free(de);
	free(a);
	free(b);
	free(d);
	free(e);
	return 0;
}
