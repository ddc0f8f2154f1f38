/* lapack_calls.c - dgetrf_ (6 x 4 and 5 x 5), dgetrs_ (5, 2 right-hand sides), dgesv_
 * (5, 2), dpotrf_ (5), dgeqrf_ (6 x 4: a workspace query, then the factorization) and
 * zgetrf_ (3 x 3), at sizes test_lapack_profile.py counts by hand; then dgesv_ of a
 * singular 3 x 3 matrix (INFO > 0: factored, not solved).
 *
 * Build: cc -o lapack_calls lapack_calls.c /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3 \
 *            /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 \
 *            -Wl,-rpath,/usr/lib/x86_64-linux-gnu/lapack:/usr/lib/x86_64-linux-gnu/blas
 */
#include <complex.h>
#include <stdio.h>
#include "../lapack.h"

static void fill(double *a, int rows, int cols)
{
	/* diagonally dominant: LU and Cholesky succeed */
	for (int j = 0; j < cols; j++)
		for (int i = 0; i < rows; i++)
			a[i + j * rows] = i == j ? 10 + i : 1.0 / (1 + i + j);
}

int main(void)
{
	double a[64], lu[64], b[16], work[256], tau[8];
	double _Complex z[9];
	int ipiv[8], info, m = 6, n = 4, five = 5, two = 2, three = 3, query = -1, lwork = 256;

	fill(a, m, n);
	dgetrf_(&m, &n, a, &m, ipiv, &info);
	fill(lu, five, five);
	dgetrf_(&five, &five, lu, &five, ipiv, &info);
	for (int i = 0; i < 10; i++)
		b[i] = i;
	dgetrs_("N", &five, &two, lu, &five, ipiv, b, &five, &info, 1);
	printf("getrs %d %.6f\n", info, b[0]);
	fill(lu, five, five);
	dgesv_(&five, &two, lu, &five, ipiv, b, &five, &info);
	fill(a, five, five);
	dpotrf_("L", &five, a, &five, &info, 1);
	printf("potrf %d %.6f\n", info, a[0]);
	fill(a, m, n);
	dgeqrf_(&m, &n, a, &m, tau, work, &query, &info);
	dgeqrf_(&m, &n, a, &m, tau, work, &lwork, &info);
	printf("geqrf %d %.6f\n", info, a[0]);
	for (int i = 0; i < 9; i++)
		z[i] = i % 4 == 0 ? 5 : I * (i % 3);
	zgetrf_(&three, &three, z, &three, ipiv, &info);
	printf("zgetrf %d %.6f\n", info, creal(z[0]));
	for (int i = 0; i < 9; i++)
		a[i] = 1;
	dgesv_(&three, &(int){1}, a, &three, ipiv, b, &three, &info);
	printf("singular %d\n", info);
	return 0;
}
