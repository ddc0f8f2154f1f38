/* blas_types.c - one call to a reference BLAS routine of every kind of result and argument:
 * REAL functions (float), DOUBLE PRECISION ones, COMPLEX and COMPLEX*16 functions (C
 * complex values returned in registers), INTEGER and LOGICAL ones, CHARACTER arguments
 * with their hidden lengths, and complex level-2/3 routines.  A wrapper that gets one of
 * those conventions wrong changes what this prints.
 *
 *   blas_types
 *
 * Makes exactly one call to each of: sdot_ dsdot_ sdsdot_ snrm2_ dznrm2_ isamax_ izamax_
 * cdotc_ cdotu_ zdotc_ zdotu_ scabs1_ dcabs1_ srotg_ zrotg_ zgemv_ cherk_ zgemm_, two to
 * lsame_ (and the calls these make inside the library, e.g. to lsame_).
 *
 * Build: cc -O2 -o blas_types blas_types.c /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 \
 *            -Wl,-rpath,/usr/lib/x86_64-linux-gnu/blas
 */
#include <complex.h>
#include <stdio.h>
#include "../blas.h"

#define NV 7

static void pz(const char *what, double _Complex z)
{
	printf("%s = %.17g%+.17gi\n", what, creal(z), cimag(z));
}

int main(void)
{
	float xs[NV], ys[NV];
	double _Complex xz[NV], yz[NV];
	float _Complex xc[NV], yc[NV];
	int n = NV, one = 1, two = 2, three = 3;

	for (int i = 0; i < NV; i++) {
		xs[i] = (float)(i - 3) / 3.0f;
		ys[i] = (float)(7 - 2 * i) / 5.0f;
		xz[i] = (i - 2) / 4.0 + I * (5 - i) / 8.0;
		yz[i] = (3 - i) / 2.0 + I * (i + 1) / 16.0;
		xc[i] = (float)(i + 1) / 3.0f - I * (float)i / 7.0f;
		yc[i] = (float)(2 - i) / 9.0f + I * 0.25f;
	}
	float sb = 0.5f;
	printf("sdot = %.9g\n", sdot_(&n, xs, &one, ys, &one));
	printf("dsdot = %.17g\n", dsdot_(&n, xs, &one, ys, &one));
	printf("sdsdot = %.9g\n", sdsdot_(&n, &sb, xs, &one, ys, &one));
	printf("snrm2 = %.9g\n", snrm2_(&n, xs, &one));
	printf("dznrm2 = %.17g\n", dznrm2_(&n, xz, &one));
	printf("isamax = %d\n", isamax_(&n, ys, &one));
	printf("izamax = %d\n", izamax_(&n, yz, &one));
	float _Complex c1 = cdotc_(&n, xc, &one, yc, &one), c2 = cdotu_(&three, xc, &two, yc, &two);
	printf("cdotc = %.9g%+.9gi\ncdotu = %.9g%+.9gi\n", crealf(c1), cimagf(c1), crealf(c2),
	       cimagf(c2));
	pz("zdotc", zdotc_(&n, xz, &one, yz, &one));
	pz("zdotu", zdotu_(&three, xz, &two, yz, &two));
	printf("scabs1 = %.9g\n", scabs1_(&xc[3]));
	printf("dcabs1 = %.17g\n", dcabs1_(&xz[1]));
	printf("lsame = %d %d\n", lsame_("t", "T", 1, 1), lsame_("n", "T", 1, 1));

	float a = 3.0f, b = 4.0f, c, s;
	srotg_(&a, &b, &c, &s);
	printf("srotg = %.9g %.9g %.9g %.9g\n", a, b, c, s);
	double _Complex za = 1.0 + 2.0 * I, zb = -0.5 + 0.25 * I, zs;
	double zc;
	zrotg_(&za, &zb, &zc, &zs);
	pz("zrotg r", za);
	printf("zrotg c = %.17g\n", zc);
	pz("zrotg s", zs);

	/* y = alpha A^H x + beta y with A 3 x 2 (lda 3), from xz */
	double _Complex alpha = 0.5 - 1.0 * I, beta = 2.0, y2[2] = {1.0, I};
	int m3 = 3, n2 = 2;
	zgemv_("C", &m3, &n2, &alpha, xz, &m3, yz, &one, &beta, y2, &one, 1);
	pz("zgemv y0", y2[0]);
	pz("zgemv y1", y2[1]);

	/* C = alpha A A^H + beta C, Hermitian 3 x 3 from a 3 x 2 A, upper triangle */
	float ra = 1.5f, rb = 0.0f;
	float _Complex cc[9] = {0};
	cherk_("U", "N", &m3, &n2, &ra, xc, &m3, &rb, cc, &m3, 1, 1);
	printf("cherk C(1,3) = %.9g%+.9gi C(3,3) = %.9g%+.9gi\n", crealf(cc[6]), cimagf(cc[6]),
	       crealf(cc[8]), cimagf(cc[8]));

	/* C = alpha A^T B^H + beta C with 2 x 2 results */
	double _Complex cz[4] = {1, 2, 3, 4};
	zgemm_("T", "C", &n2, &n2, &m3, &alpha, xz, &m3, yz, &n2, &beta, cz, &n2, 1, 1);
	for (int i = 0; i < 4; i++) {
		char what[16];
		snprintf(what, sizeof(what), "zgemm C[%d]", i);
		pz(what, cz[i]);
	}
	return 0;
}
