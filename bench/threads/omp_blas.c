/* omp_blas.c - an OpenMP program calling BLAS from a parallel loop: `omp_blas ITEMS N`
 * computes ITEMS products of N x N matrices, one per loop iteration, with dgemm_.
 * Linked to libblas.so.3 (LD_LIBRARY_PATH picks the implementation); OMP_NUM_THREADS
 * sets the team. */
#include <stdio.h>
#include <stdlib.h>

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
	    const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
	    const double *beta, double *c, const int *ldc);

int main(int argc, char **argv)
{
	int items = argc == 3 ? atoi(argv[1]) : 0, n = argc == 3 ? atoi(argv[2]) : 0;
	size_t nn = (size_t)n * (size_t)n;

	if (items < 1 || n < 1) {
		fprintf(stderr, "usage: omp_blas ITEMS N\n");
		return 2;
	}
	double *a = malloc(nn * sizeof(double)), *b = malloc(nn * sizeof(double));
	double *c = calloc(nn * (size_t)items, sizeof(double));
	if (!a || !b || !c)
		return 3;
	for (size_t i = 0; i < nn; i++)
		a[i] = (double)(i % 7), b[i] = (double)(i % 5);
#pragma omp parallel for schedule(dynamic)
	for (int i = 0; i < items; i++) {
		double one = 1, zero = 0;
		dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c + nn * (size_t)i, &n);
	}
	printf("%g\n", c[nn * (size_t)items - 1]);
	free(a);
	free(b);
	free(c);
	return 0;
}
