/* fd_blas.c - fakedev's kernels: the Fortran BLAS (libblas, the library dyliberator
 * wraps in the plain programs) run on the device copies.  Each array is checked to be
 * device memory over the extent the kernel touches, so a port that passes a host
 * pointer (a copy it forgot) stops at once instead of computing on stale host data. */
#include <stdio.h>
#include <stdlib.h>
#include "fakedev.h"
#include "fd_internal.h"

void dgemv_(const char *trans, const int *m, const int *n, const double *alpha,
	    const double *a, const int *lda, const double *x, const int *incx,
	    const double *beta, double *y, const int *incy, size_t trans_len);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
	    const double *alpha, const double *a, const int *lda, const double *b,
	    const int *ldb, const double *beta, double *c, const int *ldc, size_t la, size_t lb);
void daxpy_(const int *n, const double *alpha, const double *x, const int *incx, double *y,
	    const int *incy);

/* Stops the program when P's first BYTES are not device memory. */
static void need_device(const char *kernel, const char *arg, const void *p, size_t bytes)
{
	if (bytes && !fd_is_device(p, bytes)) {
		fprintf(stderr, "fakedev: %s: %s (%p, %zu bytes) is not device memory\n",
			kernel, arg, p, bytes);
		exit(3);
	}
}

/* Bytes spanned by N elements INC apart. */
static size_t span(int n, int inc)
{
	return n > 0 ? ((size_t)(n - 1) * (size_t)abs(inc) + 1) * sizeof(double) : 0;
}

void fd_dgemv(char trans, int m, int n, double alpha, const double *a, int lda,
	      const double *x, int incx, double beta, double *y, int incy)
{
	int t = trans != 'N' && trans != 'n';
	need_device("fd_dgemv", "a", a, n > 0 ? ((size_t)(n - 1) * lda + m) * sizeof(double) : 0);
	need_device("fd_dgemv", "x", x, span(t ? m : n, incx));
	need_device("fd_dgemv", "y", y, span(t ? n : m, incy));
	dgemv_(&trans, &m, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy, 1);
}

void fd_dgemm(char transa, char transb, int m, int n, int k, double alpha, const double *a,
	      int lda, const double *b, int ldb, double beta, double *c, int ldc)
{
	int ta = transa != 'N' && transa != 'n', tb = transb != 'N' && transb != 'n';
	int acols = ta ? m : k, bcols = tb ? k : n;
	need_device("fd_dgemm", "a", a, acols > 0 ? ((size_t)(acols - 1) * lda + (ta ? k : m)) * 8 : 0);
	need_device("fd_dgemm", "b", b, bcols > 0 ? ((size_t)(bcols - 1) * ldb + (tb ? n : k)) * 8 : 0);
	need_device("fd_dgemm", "c", c, n > 0 ? ((size_t)(n - 1) * ldc + m) * sizeof(double) : 0);
	dgemm_(&transa, &transb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
}

void fd_daxpy(int n, double alpha, const double *x, int incx, double *y, int incy)
{
	need_device("fd_daxpy", "x", x, span(n, incx));
	need_device("fd_daxpy", "y", y, span(n, incy));
	daxpy_(&n, &alpha, x, &incx, y, &incy);
}
