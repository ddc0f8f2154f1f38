/* gemm.c - test_std_diff.py's dgemm_ program: three products, the third with a new A */
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
	for (int i = 0; i < m * k; i++) a[i] = i % 7 + 1;
	for (int i = 0; i < k * n; i++) b[i] = i % 5 + 1;
	for (int round = 0; round < 3; round++) {
		if (round == 2)
			for (int i = 0; i < m * k; i++) a[i] += 0.5;	/* new A, new C */
		dgemm_(&s->ta, &s->tb, &s->m, &s->n, &s->k, &s->alpha, a, &s->lda, b, &s->ldb,
		       &s->beta, c, &s->ldc, 1, 1);
	}
	printf("%g\n", c[m * n - 1]);
	return 0;
}
