/* gemm.c - test_std_regions.py's dgemm_ program */
#include <stdio.h>
#include <stdlib.h>
#include "blas.h"
/* every scalar of the call in one heap block, so that the expected bytes are exact */
struct scalars { char ta, tb; int m, n, k, lda, ldb, ldc; double alpha, beta; };
int main(int argc, char **argv)
{
	int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
	struct scalars *s = malloc(sizeof(*s));
	*s = (struct scalars){ 'N', 'N', m, n, k, m, k, m, 1.0, 0.0 };
	double *a = malloc(sizeof(double) * m * k), *b = malloc(sizeof(double) * k * n);
	double *c = malloc(sizeof(double) * m * n);
	for (int i = 0; i < m * k; i++) a[i] = i % 7;
	for (int i = 0; i < k * n; i++) b[i] = i % 5;
	dgemm_(&s->ta, &s->tb, &s->m, &s->n, &s->k, &s->alpha, a, &s->lda, b, &s->ldb,
	       &s->beta, c, &s->ldc, 1, 1);
	int one = 1;
	double d = ddot_(&s->k, a, &one, b, &one);
	printf("%g %g %zu\n", c[m * n - 1], d, sizeof(*s));
	return 0;
}
