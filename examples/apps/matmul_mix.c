/* matmul_mix - the demo's application: a mix of many small and a few large matrix
 * products through the Fortran BLAS interface, plus some work of its own (the part an
 * accelerator cannot speed up).  Usage: matmul_mix [SMALL_CALLS [LARGE_N]] */
#include <stdio.h>
#include <stdlib.h>

void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
	    const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
	    const double *beta, double *c, const int *ldc, size_t transa_len, size_t transb_len);

static double *matrix(int n, unsigned seed)
{
	double *m = malloc(sizeof(double) * (size_t)n * (size_t)n);
	for (long i = 0; i < (long)n * n; i++) {
		seed = seed * 1103515245u + 12345u;
		m[i] = (double)(seed >> 16 & 0x7fff) / 32768.0 - 0.5;
	}
	return m;
}

static double product(int n, unsigned seed)
{
	double *a = matrix(n, seed), *b = matrix(n, seed + 1), *c = matrix(n, seed + 2);
	const double one = 1.0;
	double sum = 0;

	dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &one, c, &n, 1, 1);
	for (long i = 0; i < (long)n * n; i++)
		sum += c[i];
	free(a);
	free(b);
	free(c);
	return sum;
}

int main(int argc, char **argv)
{
	int small = argc > 1 ? atoi(argv[1]) : 2000;
	int large = argc > 2 ? atoi(argv[2]) : 400;
	double check = 0;

	for (int i = 0; i < small; i++)
		check += product(16 + i % 4 * 8, (unsigned)i);	/* 16, 24, 32, 40 */
	for (int i = 0; i < 3; i++)
		check += product(large, 7u + (unsigned)i);
	printf("checksum %.6f\n", check);
	return 0;
}
