/* blas_cblas.c - the computation of blas_fortran.c, through the C interface of the
 * reference BLAS (cblas.h): cblas_dgemm, cblas_daxpy, cblas_ddot.  Inside libblas3,
 * cblas_dgemm calls dgemm_, cblas_daxpy calls daxpy_, and cblas_ddot calls ddotsub_,
 * which calls ddot_.
 *
 *   blas_cblas [REPS [M N K]]
 *
 * Calls per run: cblas_dgemm REPS times, cblas_daxpy 2*REPS times, cblas_ddot 3*REPS times.
 * It prints exactly what blas_fortran prints for the same arguments.
 *
 * Build: cc -O2 -o blas_cblas blas_cblas.c /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 \
 *            -Wl,-rpath,/usr/lib/x86_64-linux-gnu/blas
 */
#include <stdio.h>
#include <stdlib.h>
#include <cblas.h>

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
	int reps = argc > 1 ? atoi(argv[1]) : 3, m = 6, n = 5, k = 4;

	if (argc > 4) {
		m = atoi(argv[2]);
		n = atoi(argv[3]);
		k = atoi(argv[4]);
	}
	if (reps < 0 || m < 1 || n < 1 || k < 1) {
		fprintf(stderr, "usage: blas_cblas [REPS [M N K]]\n");
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
	int len = m * n;
	int half = len / 2 > 0 ? len / 2 : 1;

	for (int r = 0; r < reps; r++) {
		enum CBLAS_TRANSPOSE ta = (r % 2) ? CblasTrans : CblasNoTrans;
		int lda = (r % 2) ? k : m;
		cblas_dgemm(CblasColMajor, ta, CblasNoTrans, m, n, k, 1.0 + r / 8.0, a, lda, b, k,
			    0.5, c, m);
		cblas_daxpy(len, -0.25, c, 1, x, 1);
		cblas_daxpy(half, 0.125, x, 2, c, 1);
		double d1 = cblas_ddot(len, c, 1, x, 1);
		double d2 = cblas_ddot(len, c, 1, c, 1);
		double d3 = cblas_ddot(half, x, 2, c, 1);
		printf("rep %d: sum(C)=%.17g sum(x)=%.17g dots=%.17g %.17g %.17g\n",
		       r, sum(c, len), sum(x, len), d1, d2, d3);
	}
	printf("C[0]=%.17g C[last]=%.17g\n", c[0], c[len - 1]);
	free(a);
	free(b);
	free(c);
	free(x);
	return 0;
}
