/* flow_dgesv.c - one linear solve with the reference LAPACK over the reference BLAS, for
 * dyl-flow's real-library example (doc/flow.md) and tests/tools/test_flow_real.py.
 *
 *   flow_dgesv [N]            (default 40)
 *
 * The program fills an N x N matrix A and a right-hand side b, keeps copies of both, and
 * calls dgesv_ once: it overwrites A with its LU factors and b with the solution x, and
 * calls dgetrf_, dgetrf2_, dgemm_, dtrsm_... inside (nested calls: they belong to dgesv_).
 * Then dgemv_ computes the residual r = b - A x from the copies.
 *
 * Every element of A and b is nonzero, so std.diff sees all of them written by the
 * program.  The program counts itself the 8-byte elements dgesv_ changed in A and in b
 * (LU factors equal to A's element, or a solution equal to b's, are not changes) and
 * prints them: the test compares them with dyl-flow's written bytes.
 *
 * Build: cc -O2 -g -o flow_dgesv flow_dgesv.c -I.. \
 *           /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3 \
 *           /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 \
 *           -Wl,-rpath,/usr/lib/x86_64-linux-gnu/lapack:/usr/lib/x86_64-linux-gnu/blas
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lapack.h"

/* nonzero, diagonally dominant: no zero element, a well-posed system */
static double elem(int i, int j, int n)
{
	return (double)((i * 7 + j * 3) % 11 + 1) / 16.0 + (i == j ? n : 0);
}

static int changed(const double *before, const double *after, int count)
{
	int c = 0;
	for (int i = 0; i < count; i++)
		c += memcmp(&before[i], &after[i], sizeof(double)) != 0;
	return c;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 40, nrhs = 1, one = 1, info = -99;
	double minus1 = -1.0, plus1 = 1.0;
	char trans = 'N';	/* a variable, not "N": one byte whatever the literal's neighbours */

	if (n < 1) {
		fprintf(stderr, "usage: flow_dgesv [N]\n");
		return 2;
	}
	double *a = malloc(sizeof(double) * n * n);	/* SITE A */
	double *b = malloc(sizeof(double) * n);		/* SITE B */
	double *a0 = malloc(sizeof(double) * n * n);	/* SITE A0 */
	double *r = malloc(sizeof(double) * n);		/* SITE R */
	int *ipiv = malloc(sizeof(int) * n);		/* SITE IPIV */
	if (!a || !b || !a0 || !r || !ipiv)
		return 1;

	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			a[i + j * n] = elem(i, j, n);
	for (int i = 0; i < n; i++)
		b[i] = (double)(i % 5 + 1);
	memcpy(a0, a, sizeof(double) * n * n);
	memcpy(r, b, sizeof(double) * n);

	dgesv_(&n, &nrhs, a, &n, ipiv, b, &n, &info);
	printf("dgesv info=%d changed A=%d x=%d\n", info, changed(a0, a, n * n),
	       changed(r, b, n));

	/* r = b - A x with the copies: x (in b) is dgesv_'s, A's copy the program's */
	dgemv_(&trans, &n, &n, &minus1, a0, &n, b, &one, &plus1, r, &one, 1);
	double res = 0;
	for (int i = 0; i < n; i++)
		res += r[i] * r[i];
	printf("residual^2 %s 1e-20\n", res < 1e-20 ? "<" : ">=");
	free(a);
	free(b);
	free(a0);
	free(r);
	free(ipiv);
	return 0;
}
