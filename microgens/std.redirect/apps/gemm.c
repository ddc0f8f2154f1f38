/* gemm.c - test_std_redirect.py's program on reference BLAS or OpenBLAS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
	    const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
	    const double *beta, double *c, const int *ldc, size_t la, size_t lb);
/* C = A * B, REPS times, for n x n matrices; writes C (doubles) to argv[3] */
int main(int argc, char **argv)
{
	int n = atoi(argv[1]), reps = atoi(argv[2]);
	size_t nn = (size_t)n * n;
	double *a = malloc(nn * 8), *b = malloc(nn * 8), *c = malloc(nn * 8), one = 1, zero = 0;
	unsigned s = 1;
	for (size_t i = 0; i < nn; i++) {
		/* / 3: full mantissas, so that sums depend on their order (k/2^15 would add exactly) */
		s = s * 1103515245u + 12345u; a[i] = ((double)(s >> 16 & 0x7fff) / 32768.0 - 0.5) / 3;
		s = s * 1103515245u + 12345u; b[i] = ((double)(s >> 16 & 0x7fff) / 32768.0 - 0.5) / 3;
	}
	for (int r = 0; r < reps; r++)
		dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
	FILE *f = fopen(argv[3], "wb");
	fwrite(c, 8, nn, f);
	fclose(f);
	return 0;
}
