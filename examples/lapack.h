/*
 * lapack.h - C prototypes of the few reference LAPACK routines the examples and tests use
 * (linear solves: dgesv_ and the routines it calls, dpotrf_/dpotrs_), as exported by
 * /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3 (package liblapack3).  The conventions are
 * blas.h's (gfortran: everything by reference, const on inputs, one hidden size_t length
 * per CHARACTER argument appended after the visible ones, in order); it includes blas.h
 * because LAPACK exports xerbla_ and lsame_ too (its xerbla_ prints with WRITE and STOPs).
 *
 *     dyliberator --lib liblapack.so.3 --header examples/lapack.h \
 *                 --lib /usr/lib/x86_64-linux-gnu/blas/libblas.so.3
 *
 * Debian ships no header of LAPACK's Fortran interface in liblapack-dev; liblapacke-dev
 * has lapack.h (LAPACK_dgesv... macros), which would do as well.
 */
#ifndef DYL_EXAMPLE_LAPACK_H
#define DYL_EXAMPLE_LAPACK_H

#include <stddef.h>
#include "blas.h"

#ifdef __cplusplus
extern "C" {
#endif

/* General systems: A X = B by LU with partial pivoting */
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
	const int *ldb, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrf2_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
	const int *ipiv, double *b, const int *ldb, int *info, size_t trans_len);
void dlaswp_(const int *n, double *a, const int *lda, const int *k1, const int *k2,
	const int *ipiv, const int *incx);

/* Symmetric positive definite systems: Cholesky */
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info,
	size_t uplo_len);
void dpotrf2_(const char *uplo, const int *n, double *a, const int *lda, int *info,
	size_t uplo_len);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
	double *b, const int *ldb, int *info, size_t uplo_len);

/* Auxiliaries the solvers call */
int ilaenv_(const int *ispec, const char *name, const char *opts, const int *n1, const int *n2,
	const int *n3, const int *n4, size_t name_len, size_t opts_len);
int iparmq_(const int *ispec, const char *name, const char *opts, const int *n, const int *ilo,
	const int *ihi, const int *lwork, size_t name_len, size_t opts_len);
int ieeeck_(const int *ispec, const float *zero, const float *one);
double dlamch_(const char *cmach, size_t cmach_len);
int disnan_(const double *din);
int dlaisnan_(const double *din1, const double *din2);

#ifdef __cplusplus
}
#endif
#endif /* DYL_EXAMPLE_LAPACK_H */
