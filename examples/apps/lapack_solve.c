/* lapack_solve.c - solves linear systems with the reference LAPACK, which calls the BLAS
 * internally (dgesv_ -> dgetrf_ -> dgetrf2_ -> idamax_, dswap_, dscal_, dtrsm_, dgemm_...).
 *
 *   lapack_solve [N [NRHS [REPS]]] [--illegal]
 *
 * Per rep: one dgesv_ (general N x N system, NRHS right-hand sides), one dgemm_ made by this
 * program for the residual A X - B, one dpotrf_ and one dpotrs_ (symmetric positive
 * definite system).  Defaults: N=40, NRHS=3, REPS=2.  --illegal then calls dgesv_ with
 * N=-1: LAPACK's xerbla_ prints " ** On entry to DGESV  parameter number  1 had an illegal
 * value" (it needs the hidden length of its CHARACTER argument) and STOPs.
 *
 * Build: cc -O2 -o lapack_solve lapack_solve.c /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3 \
 *           /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 \
 *           -Wl,-rpath,/usr/lib/x86_64-linux-gnu/lapack:/usr/lib/x86_64-linux-gnu/blas
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lapack.h"

static double val(int i, int salt)
{
	return (double)((i * 13 + salt * 5) % 17 - 8) / 8.0;
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
	int n = 40, nrhs = 3, reps = 2, illegal = 0, pos[3], npos = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--illegal") == 0)
			illegal = 1;
		else if (npos < 3)
			pos[npos++] = atoi(argv[i]);
	}
	if (npos >= 1)
		n = pos[0];
	if (npos >= 2)
		nrhs = pos[1];
	if (npos >= 3)
		reps = pos[2];
	if (n < 1 || nrhs < 1 || reps < 0) {
		fprintf(stderr, "usage: lapack_solve [N [NRHS [REPS]]] [--illegal]\n");
		return 2;
	}

	double *a = malloc(sizeof(double) * n * n), *lu = malloc(sizeof(double) * n * n);
	double *b = malloc(sizeof(double) * n * nrhs), *x = malloc(sizeof(double) * n * nrhs);
	int *ipiv = malloc(sizeof(int) * n), info;

	for (int r = 0; r < reps; r++) {
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++)
				a[i + j * n] = val(i * n + j, r) + (i == j ? 1.0 + r : 0.0);
		for (int i = 0; i < n * nrhs; i++)
			b[i] = val(i, r + 7);
		memcpy(lu, a, sizeof(double) * n * n);
		memcpy(x, b, sizeof(double) * n * nrhs);
		dgesv_(&n, &nrhs, lu, &n, ipiv, x, &n, &info);
		printf("rep %d: dgesv info=%d sum(X)=%.17g X[0]=%.17g ipiv[0]=%d\n", r, info,
		       sum(x, n * nrhs), x[0], ipiv[0]);

		/* residual B - A X, with the BLAS directly */
		double minus1 = -1.0, plus1 = 1.0, res = 0.0;
		dgemm_("N", "N", &n, &nrhs, &n, &minus1, a, &n, x, &n, &plus1, b, &n, 1, 1);
		for (int i = 0; i < n * nrhs; i++)
			res += b[i] * b[i];
		printf("rep %d: residual^2 %s 1e-20\n", r, res < 1e-20 ? "<" : ">=");

		/* symmetric positive definite: S(i,j) = 1/(1+|i-j|) + n*[i==j] */
		for (int j = 0; j < n; j++)
			for (int i = 0; i < n; i++)
				lu[i + j * n] = 1.0 / (1 + abs(i - j)) + (i == j ? n + r : 0);
		for (int i = 0; i < n * nrhs; i++)
			x[i] = val(i, r + 3);
		dpotrf_("L", &n, lu, &n, &info, 1);
		printf("rep %d: dpotrf info=%d L[0]=%.17g L[last]=%.17g\n", r, info, lu[0],
		       lu[n * n - 1]);
		dpotrs_("L", &n, &nrhs, lu, &n, x, &n, &info, 1);
		printf("rep %d: dpotrs info=%d sum(X)=%.17g\n", r, info, sum(x, n * nrhs));
	}
	if (illegal) {
		int bad = -1;
		printf("calling dgesv_ with N=-1\n");
		fflush(stdout);
		dgesv_(&bad, &nrhs, lu, &n, ipiv, x, &n, &info);
		printf("dgesv_ returned info=%d\n", info);
	}
	free(a);
	free(lu);
	free(b);
	free(x);
	free(ipiv);
	return 0;
}
