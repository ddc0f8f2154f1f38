/* blas_fortran.c - calls the reference BLAS through its Fortran interface (dgemm_, daxpy_,
 * ddot_), with the hidden CHARACTER lengths, on deterministic data.
 *
 *   blas_fortran [REPS [M N K]] [--illegal]
 *
 * Calls per run: dgemm_ REPS times, daxpy_ 2*REPS times, ddot_ 3*REPS times (defaults:
 * REPS=3, M=6, N=5, K=4).  Rep r multiplies op(A) (M x K; A is stored transposed when r is
 * odd, transa='T') by B (K x N).  --illegal then makes one more dgemm_ call with M=-1, which
 * the BLAS reports through xerbla_ (on stderr for libblas3's xerbla; LAPACK's xerbla, if it
 * comes first, prints on stdout and STOPs).
 *
 * Build: cc -O2 -o blas_fortran blas_fortran.c /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 \
 *            -Wl,-rpath,/usr/lib/x86_64-linux-gnu/blas
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../blas.h"

static double val(int i, int salt)
{
	return (double)((i * 7 + salt * 3) % 11 - 5) / 4.0;
}

static double sum(const double *v, int n)
{
	double s = 0.0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

int main(int argc, char **argv)
{
	int reps = 3, m = 6, n = 5, k = 4, illegal = 0, pos[4], npos = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--illegal") == 0)
			illegal = 1;
		else if (npos < 4)
			pos[npos++] = atoi(argv[i]);
	}
	if (npos >= 1)
		reps = pos[0];
	if (npos >= 4) {
		m = pos[1];
		n = pos[2];
		k = pos[3];
	}
	if (reps < 0 || m < 1 || n < 1 || k < 1) {
		fprintf(stderr, "usage: blas_fortran [REPS [M N K]] [--illegal]\n");
		return 2;
	}

	double *a = malloc(sizeof(double) * m * k), *b = malloc(sizeof(double) * k * n);
	double *c = malloc(sizeof(double) * m * n), *x = malloc(sizeof(double) * m * n);
	for (int i = 0; i < m * k; i++)
		a[i] = val(i, 1);
	for (int i = 0; i < k * n; i++)
		b[i] = val(i, 2);
	for (int i = 0; i < m * n; i++) {
		c[i] = val(i, 3);
		x[i] = val(i, 4);
	}
	int len = m * n, one = 1, two = 2;
	int half = len / 2 > 0 ? len / 2 : 1;

	for (int r = 0; r < reps; r++) {
		const char *ta = (r % 2) ? "T" : "N";
		int lda = (r % 2) ? k : m;
		double alpha = 1.0 + r / 8.0, beta = 0.5;
		dgemm_(ta, "N", &m, &n, &k, &alpha, a, &lda, b, &k, &beta, c, &m, 1, 1);

		double s1 = -0.25, s2 = 0.125;
		daxpy_(&len, &s1, c, &one, x, &one);
		daxpy_(&half, &s2, x, &two, c, &one);

		double d1 = ddot_(&len, c, &one, x, &one);
		double d2 = ddot_(&len, c, &one, c, &one);
		double d3 = ddot_(&half, x, &two, c, &one);
		printf("rep %d: sum(C)=%.17g sum(x)=%.17g dots=%.17g %.17g %.17g\n",
		       r, sum(c, len), sum(x, len), d1, d2, d3);
	}
	printf("C[0]=%.17g C[last]=%.17g\n", c[0], c[len - 1]);
	if (illegal) {
		int bad = -1;
		double alpha = 1.0, beta = 0.0;
		printf("calling dgemm_ with M=-1\n");
		fflush(stdout);
		dgemm_("N", "N", &bad, &n, &k, &alpha, a, &m, b, &k, &beta, c, &m, 1, 1);
		printf("dgemm_ returned\n");
	}
	free(a);
	free(b);
	free(c);
	free(x);
	return 0;
}
