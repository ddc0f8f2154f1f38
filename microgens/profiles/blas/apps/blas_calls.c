/* blas_calls.c - one call each of dgemm_, zgemm_, sgemv_, cblas_dgemm (row major, A
 * transposed) and cblas_zaxpy (incx = 2), at sizes test_blas_profile.py counts by hand;
 * then dgemm_ with alpha = 0, beta = 1 (a quick return: nothing read, no work).
 *
 * Build: cc -o blas_calls blas_calls.c /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 \
 *            -Wl,-rpath,/usr/lib/x86_64-linux-gnu/blas
 */
#include <complex.h>
#include <stdio.h>
#include <cblas.h>
#include "../blas.h"

static double a[64], b[64], c[64];
static double _Complex za[64], zb[64], zc[64];
static float sa[64], sx[64], sy[64];

int main(void)
{
	for (int i = 0; i < 64; i++) {
		a[i] = i % 7 - 3; b[i] = i % 5 - 2; c[i] = 1;
		za[i] = (i % 3) + I * (i % 4); zb[i] = 1 - I * (i % 2); zc[i] = 0;
		sa[i] = i % 4; sx[i] = 1; sy[i] = 2;
	}
	/* C 7 x 3 = A 7 x 9 * B 9 x 3, beta = 0.5: C read */
	int m = 7, n = 3, k = 9;
	double one = 1, half = 0.5, zero = 0;
	dgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &half, c, &m, 1, 1);
	/* C 4 x 5 = A 4 x 6 * B^H (B 5 x 6), beta = 0: C not read */
	int zm = 4, zn = 5, zk = 6;
	double _Complex zone = 1, zzero = 0;
	zgemm_("N", "C", &zm, &zn, &zk, &zone, za, &zm, zb, &zn, &zzero, zc, &zm, 1, 1);
	/* y 4 = 2 A^T x (A 6 x 4, x 6) + y */
	int sm = 6, sn = 4, inc = 1;
	float two = 2, fone = 1;
	sgemv_("T", &sm, &sn, &two, sa, &sm, sx, &inc, &fone, sy, &inc, 1);
	/* row major: C 5 x 3 = A^T B + 2 C, A 4 x 5 (lda 5), B 4 x 3 (ldb 3), C ldc 3 */
	cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, 5, 3, 4, 1.0, a, 5, b, 3, 2.0, c, 3);
	/* y = (2 + i) x + y over 5 elements, x every other one */
	double _Complex alpha = 2 + I;
	cblas_zaxpy(5, &alpha, za, 2, zc, 1);
	/* alpha = 0, beta = 1: C does not change, dgemm_ returns at once */
	dgemm_("N", "N", &m, &n, &k, &zero, a, &m, b, &k, &one, c, &m, 1, 1);
	printf("%g %g %g %g\n", c[0], creal(zc[0]), cimag(zc[1]), (double)sy[3]);
	return 0;
}
