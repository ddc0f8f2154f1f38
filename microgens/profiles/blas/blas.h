/*
 * blas.h - C prototypes of the reference Fortran BLAS (Netlib BLAS 3.11, levels 1-3, the
 * types s, d, c, z, the auxiliaries lsame_, xerbla_ and xerbla_array_, and the subroutine
 * forms *sub_ that CBLAS calls), as exported by the Debian/Ubuntu reference library
 * /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 (package libblas3): one prototype for every
 * exported symbol ending in '_' (173 of them).  OpenBLAS exports the same names with the
 * same arguments.  The header of the blas profile (profile.toml); blas.defs reads the
 * arguments by the names given here.  examples/blas.h includes it.
 *
 * Calling convention (gfortran on x86-64, the compiler that builds libblas3):
 *  - Names are the lower-case Fortran names with one trailing underscore (DGEMM -> dgemm_).
 *  - Every argument is passed by reference: INTEGER -> int * (32-bit: LP64, not an ILP64
 *    build), REAL -> float *, DOUBLE PRECISION -> double *, COMPLEX -> float _Complex *,
 *    COMPLEX*16 -> double _Complex *, CHARACTER -> char *.
 *  - Arguments the routine only reads are declared const; arguments it writes (outputs,
 *    and input/outputs such as C of GEMM or Y of AXPY) are not.  Tools such as
 *    dyliberator's std.args and std.regions tell inputs from outputs by that const.
 *  - Hidden CHARACTER lengths: for every CHARACTER argument gfortran appends one extra
 *    argument, its length, passed BY VALUE as size_t, after all the visible arguments and
 *    in the order of the CHARACTER arguments.  E.g. DGEMM(TRANSA, TRANSB, M, ..., LDC) is
 *        dgemm_(transa, transb, m, ..., ldc, transa_len, transb_len).
 *    They are declared here (named <arg>_len) so that a wrapper forwards them: a routine
 *    that uses them reads garbage otherwise.  The Fortran XERBLA (liblapack3 exports one,
 *    which comes first when a program links LAPACK) prints SRNAME(1:LEN_TRIM(SRNAME));
 *    LAPACK's ILAENV copies NAME by its length.  (libblas3's own xerbla_ is CBLAS's C one,
 *    which ignores the length.)  C callers that omit the lengths work only by luck.
 *  - Functions: INTEGER and LOGICAL return int; REAL returns float (not double, as f2c
 *    would); DOUBLE PRECISION returns double; COMPLEX and COMPLEX*16 are returned by value
 *    in xmm0/xmm1 exactly like C's float _Complex / double _Complex (no hidden result
 *    argument: that is the f2c/g77 -ff2c convention, which gfortran does not use by default).
 *  - Arrays are column-major; leading dimensions (LDA...) count elements.
 */
#ifndef DYL_PROFILE_BLAS_H
#define DYL_PROFILE_BLAS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Level 1: plane rotations */
void srotg_(float *a, float *b, float *c, float *s);
void drotg_(double *a, double *b, double *c, double *s);
void crotg_(float _Complex *a, const float _Complex *b, float *c, float _Complex *s);
void zrotg_(double _Complex *a, const double _Complex *b, double *c, double _Complex *s);
void srotmg_(float *d1, float *d2, float *x1, const float *y1, float *param);
void drotmg_(double *d1, double *d2, double *x1, const double *y1, double *param);
void srot_(const int *n, float *x, const int *incx, float *y, const int *incy, const float *c,
	const float *s);
void drot_(const int *n, double *x, const int *incx, double *y, const int *incy, const double *c,
	const double *s);
void csrot_(const int *n, float _Complex *x, const int *incx, float _Complex *y, const int *incy,
	const float *c, const float *s);
void zdrot_(const int *n, double _Complex *x, const int *incx, double _Complex *y, const int *incy,
	const double *c, const double *s);
void srotm_(const int *n, float *x, const int *incx, float *y, const int *incy, const float *param);
void drotm_(const int *n, double *x, const int *incx, double *y, const int *incy,
	const double *param);

/* Level 1: vector operations */
void sswap_(const int *n, float *x, const int *incx, float *y, const int *incy);
void dswap_(const int *n, double *x, const int *incx, double *y, const int *incy);
void cswap_(const int *n, float _Complex *x, const int *incx, float _Complex *y, const int *incy);
void zswap_(const int *n, double _Complex *x, const int *incx, double _Complex *y, const int *incy);
void sscal_(const int *n, const float *a, float *x, const int *incx);
void dscal_(const int *n, const double *a, double *x, const int *incx);
void cscal_(const int *n, const float _Complex *a, float _Complex *x, const int *incx);
void zscal_(const int *n, const double _Complex *a, double _Complex *x, const int *incx);
void csscal_(const int *n, const float *a, float _Complex *x, const int *incx);
void zdscal_(const int *n, const double *a, double _Complex *x, const int *incx);
void scopy_(const int *n, const float *x, const int *incx, float *y, const int *incy);
void dcopy_(const int *n, const double *x, const int *incx, double *y, const int *incy);
void ccopy_(const int *n, const float _Complex *x, const int *incx, float _Complex *y,
	const int *incy);
void zcopy_(const int *n, const double _Complex *x, const int *incx, double _Complex *y,
	const int *incy);
void saxpy_(const int *n, const float *a, const float *x, const int *incx, float *y,
	const int *incy);
void daxpy_(const int *n, const double *a, const double *x, const int *incx, double *y,
	const int *incy);
void caxpy_(const int *n, const float _Complex *a, const float _Complex *x, const int *incx,
	float _Complex *y, const int *incy);
void zaxpy_(const int *n, const double _Complex *a, const double _Complex *x, const int *incx,
	double _Complex *y, const int *incy);

/* Level 1: functions (REAL functions return float, COMPLEX ones return C _Complex values in xmm0/xmm1) */
float sdot_(const int *n, const float *x, const int *incx, const float *y, const int *incy);
double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy);
double dsdot_(const int *n, const float *x, const int *incx, const float *y, const int *incy);
float sdsdot_(const int *n, const float *sb, const float *x, const int *incx, const float *y,
	const int *incy);
float _Complex cdotu_(const int *n, const float _Complex *x, const int *incx,
	const float _Complex *y, const int *incy);
float _Complex cdotc_(const int *n, const float _Complex *x, const int *incx,
	const float _Complex *y, const int *incy);
double _Complex zdotu_(const int *n, const double _Complex *x, const int *incx,
	const double _Complex *y, const int *incy);
double _Complex zdotc_(const int *n, const double _Complex *x, const int *incx,
	const double _Complex *y, const int *incy);
float snrm2_(const int *n, const float *x, const int *incx);
double dnrm2_(const int *n, const double *x, const int *incx);
float scnrm2_(const int *n, const float _Complex *x, const int *incx);
double dznrm2_(const int *n, const double _Complex *x, const int *incx);
float sasum_(const int *n, const float *x, const int *incx);
double dasum_(const int *n, const double *x, const int *incx);
float scasum_(const int *n, const float _Complex *x, const int *incx);
double dzasum_(const int *n, const double _Complex *x, const int *incx);
int isamax_(const int *n, const float *x, const int *incx);
int idamax_(const int *n, const double *x, const int *incx);
int icamax_(const int *n, const float _Complex *x, const int *incx);
int izamax_(const int *n, const double _Complex *x, const int *incx);
float scabs1_(const float _Complex *z);
double dcabs1_(const double _Complex *z);

/* Level 1: subroutine forms of the functions (from CBLAS, which calls them): the result is the last argument */
void sdotsub_(const int *n, const float *x, const int *incx, const float *y, const int *incy,
	float *dot);
void ddotsub_(const int *n, const double *x, const int *incx, const double *y, const int *incy,
	double *dot);
void dsdotsub_(const int *n, const float *x, const int *incx, const float *y, const int *incy,
	double *dot);
void sdsdotsub_(const int *n, const float *sb, const float *x, const int *incx, const float *y,
	const int *incy, float *dot);
void cdotusub_(const int *n, const float _Complex *x, const int *incx, const float _Complex *y,
	const int *incy, float _Complex *dot);
void cdotcsub_(const int *n, const float _Complex *x, const int *incx, const float _Complex *y,
	const int *incy, float _Complex *dot);
void zdotusub_(const int *n, const double _Complex *x, const int *incx, const double _Complex *y,
	const int *incy, double _Complex *dot);
void zdotcsub_(const int *n, const double _Complex *x, const int *incx, const double _Complex *y,
	const int *incy, double _Complex *dot);
void snrm2sub_(const int *n, const float *x, const int *incx, float *nrm2);
void dnrm2sub_(const int *n, const double *x, const int *incx, double *nrm2);
void scnrm2sub_(const int *n, const float _Complex *x, const int *incx, float *nrm2);
void dznrm2sub_(const int *n, const double _Complex *x, const int *incx, double *nrm2);
void sasumsub_(const int *n, const float *x, const int *incx, float *asum);
void dasumsub_(const int *n, const double *x, const int *incx, double *asum);
void scasumsub_(const int *n, const float _Complex *x, const int *incx, float *asum);
void dzasumsub_(const int *n, const double _Complex *x, const int *incx, double *asum);
void isamaxsub_(const int *n, const float *x, const int *incx, int *iamax);
void idamaxsub_(const int *n, const double *x, const int *incx, int *iamax);
void icamaxsub_(const int *n, const float _Complex *x, const int *incx, int *iamax);
void izamaxsub_(const int *n, const double _Complex *x, const int *incx, int *iamax);
void scabs1sub_(const float _Complex *z, float *abs1);
void dcabs1sub_(const double _Complex *z, double *abs1);

/* Level 2: matrix-vector operations */
void sgemv_(const char *trans, const int *m, const int *n, const float *alpha, const float *a,
	const int *lda, const float *x, const int *incx, const float *beta, float *y, const int *incy,
	size_t trans_len);
void dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a,
	const int *lda, const double *x, const int *incx, const double *beta, double *y, const int *incy,
	size_t trans_len);
void cgemv_(const char *trans, const int *m, const int *n, const float _Complex *alpha,
	const float _Complex *a, const int *lda, const float _Complex *x, const int *incx,
	const float _Complex *beta, float _Complex *y, const int *incy, size_t trans_len);
void zgemv_(const char *trans, const int *m, const int *n, const double _Complex *alpha,
	const double _Complex *a, const int *lda, const double _Complex *x, const int *incx,
	const double _Complex *beta, double _Complex *y, const int *incy, size_t trans_len);
void sgbmv_(const char *trans, const int *m, const int *n, const int *kl, const int *ku,
	const float *alpha, const float *a, const int *lda, const float *x, const int *incx,
	const float *beta, float *y, const int *incy, size_t trans_len);
void dgbmv_(const char *trans, const int *m, const int *n, const int *kl, const int *ku,
	const double *alpha, const double *a, const int *lda, const double *x, const int *incx,
	const double *beta, double *y, const int *incy, size_t trans_len);
void cgbmv_(const char *trans, const int *m, const int *n, const int *kl, const int *ku,
	const float _Complex *alpha, const float _Complex *a, const int *lda, const float _Complex *x,
	const int *incx, const float _Complex *beta, float _Complex *y, const int *incy, size_t trans_len);
void zgbmv_(const char *trans, const int *m, const int *n, const int *kl, const int *ku,
	const double _Complex *alpha, const double _Complex *a, const int *lda, const double _Complex *x,
	const int *incx, const double _Complex *beta, double _Complex *y, const int *incy,
	size_t trans_len);
void ssymv_(const char *uplo, const int *n, const float *alpha, const float *a, const int *lda,
	const float *x, const int *incx, const float *beta, float *y, const int *incy, size_t uplo_len);
void dsymv_(const char *uplo, const int *n, const double *alpha, const double *a, const int *lda,
	const double *x, const int *incx, const double *beta, double *y, const int *incy, size_t uplo_len);
void chemv_(const char *uplo, const int *n, const float _Complex *alpha, const float _Complex *a,
	const int *lda, const float _Complex *x, const int *incx, const float _Complex *beta,
	float _Complex *y, const int *incy, size_t uplo_len);
void zhemv_(const char *uplo, const int *n, const double _Complex *alpha, const double _Complex *a,
	const int *lda, const double _Complex *x, const int *incx, const double _Complex *beta,
	double _Complex *y, const int *incy, size_t uplo_len);
void ssbmv_(const char *uplo, const int *n, const int *k, const float *alpha, const float *a,
	const int *lda, const float *x, const int *incx, const float *beta, float *y, const int *incy,
	size_t uplo_len);
void dsbmv_(const char *uplo, const int *n, const int *k, const double *alpha, const double *a,
	const int *lda, const double *x, const int *incx, const double *beta, double *y, const int *incy,
	size_t uplo_len);
void chbmv_(const char *uplo, const int *n, const int *k, const float _Complex *alpha,
	const float _Complex *a, const int *lda, const float _Complex *x, const int *incx,
	const float _Complex *beta, float _Complex *y, const int *incy, size_t uplo_len);
void zhbmv_(const char *uplo, const int *n, const int *k, const double _Complex *alpha,
	const double _Complex *a, const int *lda, const double _Complex *x, const int *incx,
	const double _Complex *beta, double _Complex *y, const int *incy, size_t uplo_len);
void sspmv_(const char *uplo, const int *n, const float *alpha, const float *ap, const float *x,
	const int *incx, const float *beta, float *y, const int *incy, size_t uplo_len);
void dspmv_(const char *uplo, const int *n, const double *alpha, const double *ap, const double *x,
	const int *incx, const double *beta, double *y, const int *incy, size_t uplo_len);
void chpmv_(const char *uplo, const int *n, const float _Complex *alpha, const float _Complex *ap,
	const float _Complex *x, const int *incx, const float _Complex *beta, float _Complex *y,
	const int *incy, size_t uplo_len);
void zhpmv_(const char *uplo, const int *n, const double _Complex *alpha, const double _Complex *ap,
	const double _Complex *x, const int *incx, const double _Complex *beta, double _Complex *y,
	const int *incy, size_t uplo_len);
void strmv_(const char *uplo, const char *trans, const char *diag, const int *n, const float *a,
	const int *lda, float *x, const int *incx, size_t uplo_len, size_t trans_len, size_t diag_len);
void dtrmv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *a,
	const int *lda, double *x, const int *incx, size_t uplo_len, size_t trans_len, size_t diag_len);
void ctrmv_(const char *uplo, const char *trans, const char *diag, const int *n,
	const float _Complex *a, const int *lda, float _Complex *x, const int *incx, size_t uplo_len,
	size_t trans_len, size_t diag_len);
void ztrmv_(const char *uplo, const char *trans, const char *diag, const int *n,
	const double _Complex *a, const int *lda, double _Complex *x, const int *incx, size_t uplo_len,
	size_t trans_len, size_t diag_len);
void strsv_(const char *uplo, const char *trans, const char *diag, const int *n, const float *a,
	const int *lda, float *x, const int *incx, size_t uplo_len, size_t trans_len, size_t diag_len);
void dtrsv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *a,
	const int *lda, double *x, const int *incx, size_t uplo_len, size_t trans_len, size_t diag_len);
void ctrsv_(const char *uplo, const char *trans, const char *diag, const int *n,
	const float _Complex *a, const int *lda, float _Complex *x, const int *incx, size_t uplo_len,
	size_t trans_len, size_t diag_len);
void ztrsv_(const char *uplo, const char *trans, const char *diag, const int *n,
	const double _Complex *a, const int *lda, double _Complex *x, const int *incx, size_t uplo_len,
	size_t trans_len, size_t diag_len);
void stbmv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k,
	const float *a, const int *lda, float *x, const int *incx, size_t uplo_len, size_t trans_len,
	size_t diag_len);
void dtbmv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k,
	const double *a, const int *lda, double *x, const int *incx, size_t uplo_len, size_t trans_len,
	size_t diag_len);
void ctbmv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k,
	const float _Complex *a, const int *lda, float _Complex *x, const int *incx, size_t uplo_len,
	size_t trans_len, size_t diag_len);
void ztbmv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k,
	const double _Complex *a, const int *lda, double _Complex *x, const int *incx, size_t uplo_len,
	size_t trans_len, size_t diag_len);
void stbsv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k,
	const float *a, const int *lda, float *x, const int *incx, size_t uplo_len, size_t trans_len,
	size_t diag_len);
void dtbsv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k,
	const double *a, const int *lda, double *x, const int *incx, size_t uplo_len, size_t trans_len,
	size_t diag_len);
void ctbsv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k,
	const float _Complex *a, const int *lda, float _Complex *x, const int *incx, size_t uplo_len,
	size_t trans_len, size_t diag_len);
void ztbsv_(const char *uplo, const char *trans, const char *diag, const int *n, const int *k,
	const double _Complex *a, const int *lda, double _Complex *x, const int *incx, size_t uplo_len,
	size_t trans_len, size_t diag_len);
void stpmv_(const char *uplo, const char *trans, const char *diag, const int *n, const float *ap,
	float *x, const int *incx, size_t uplo_len, size_t trans_len, size_t diag_len);
void dtpmv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *ap,
	double *x, const int *incx, size_t uplo_len, size_t trans_len, size_t diag_len);
void ctpmv_(const char *uplo, const char *trans, const char *diag, const int *n,
	const float _Complex *ap, float _Complex *x, const int *incx, size_t uplo_len, size_t trans_len,
	size_t diag_len);
void ztpmv_(const char *uplo, const char *trans, const char *diag, const int *n,
	const double _Complex *ap, double _Complex *x, const int *incx, size_t uplo_len, size_t trans_len,
	size_t diag_len);
void stpsv_(const char *uplo, const char *trans, const char *diag, const int *n, const float *ap,
	float *x, const int *incx, size_t uplo_len, size_t trans_len, size_t diag_len);
void dtpsv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *ap,
	double *x, const int *incx, size_t uplo_len, size_t trans_len, size_t diag_len);
void ctpsv_(const char *uplo, const char *trans, const char *diag, const int *n,
	const float _Complex *ap, float _Complex *x, const int *incx, size_t uplo_len, size_t trans_len,
	size_t diag_len);
void ztpsv_(const char *uplo, const char *trans, const char *diag, const int *n,
	const double _Complex *ap, double _Complex *x, const int *incx, size_t uplo_len, size_t trans_len,
	size_t diag_len);
void sger_(const int *m, const int *n, const float *alpha, const float *x, const int *incx,
	const float *y, const int *incy, float *a, const int *lda);
void dger_(const int *m, const int *n, const double *alpha, const double *x, const int *incx,
	const double *y, const int *incy, double *a, const int *lda);
void cgeru_(const int *m, const int *n, const float _Complex *alpha, const float _Complex *x,
	const int *incx, const float _Complex *y, const int *incy, float _Complex *a, const int *lda);
void zgeru_(const int *m, const int *n, const double _Complex *alpha, const double _Complex *x,
	const int *incx, const double _Complex *y, const int *incy, double _Complex *a, const int *lda);
void cgerc_(const int *m, const int *n, const float _Complex *alpha, const float _Complex *x,
	const int *incx, const float _Complex *y, const int *incy, float _Complex *a, const int *lda);
void zgerc_(const int *m, const int *n, const double _Complex *alpha, const double _Complex *x,
	const int *incx, const double _Complex *y, const int *incy, double _Complex *a, const int *lda);
void ssyr_(const char *uplo, const int *n, const float *alpha, const float *x, const int *incx,
	float *a, const int *lda, size_t uplo_len);
void dsyr_(const char *uplo, const int *n, const double *alpha, const double *x, const int *incx,
	double *a, const int *lda, size_t uplo_len);
void cher_(const char *uplo, const int *n, const float *alpha, const float _Complex *x,
	const int *incx, float _Complex *a, const int *lda, size_t uplo_len);
void zher_(const char *uplo, const int *n, const double *alpha, const double _Complex *x,
	const int *incx, double _Complex *a, const int *lda, size_t uplo_len);
void sspr_(const char *uplo, const int *n, const float *alpha, const float *x, const int *incx,
	float *ap, size_t uplo_len);
void dspr_(const char *uplo, const int *n, const double *alpha, const double *x, const int *incx,
	double *ap, size_t uplo_len);
void chpr_(const char *uplo, const int *n, const float *alpha, const float _Complex *x,
	const int *incx, float _Complex *ap, size_t uplo_len);
void zhpr_(const char *uplo, const int *n, const double *alpha, const double _Complex *x,
	const int *incx, double _Complex *ap, size_t uplo_len);
void ssyr2_(const char *uplo, const int *n, const float *alpha, const float *x, const int *incx,
	const float *y, const int *incy, float *a, const int *lda, size_t uplo_len);
void dsyr2_(const char *uplo, const int *n, const double *alpha, const double *x, const int *incx,
	const double *y, const int *incy, double *a, const int *lda, size_t uplo_len);
void cher2_(const char *uplo, const int *n, const float _Complex *alpha, const float _Complex *x,
	const int *incx, const float _Complex *y, const int *incy, float _Complex *a, const int *lda,
	size_t uplo_len);
void zher2_(const char *uplo, const int *n, const double _Complex *alpha, const double _Complex *x,
	const int *incx, const double _Complex *y, const int *incy, double _Complex *a, const int *lda,
	size_t uplo_len);
void sspr2_(const char *uplo, const int *n, const float *alpha, const float *x, const int *incx,
	const float *y, const int *incy, float *ap, size_t uplo_len);
void dspr2_(const char *uplo, const int *n, const double *alpha, const double *x, const int *incx,
	const double *y, const int *incy, double *ap, size_t uplo_len);
void chpr2_(const char *uplo, const int *n, const float _Complex *alpha, const float _Complex *x,
	const int *incx, const float _Complex *y, const int *incy, float _Complex *ap, size_t uplo_len);
void zhpr2_(const char *uplo, const int *n, const double _Complex *alpha, const double _Complex *x,
	const int *incx, const double _Complex *y, const int *incy, double _Complex *ap, size_t uplo_len);

/* Level 3: matrix-matrix operations */
void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
	const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
	const float *beta, float *c, const int *ldc, size_t transa_len, size_t transb_len);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
	const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
	const double *beta, double *c, const int *ldc, size_t transa_len, size_t transb_len);
void cgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
	const float _Complex *alpha, const float _Complex *a, const int *lda, const float _Complex *b,
	const int *ldb, const float _Complex *beta, float _Complex *c, const int *ldc, size_t transa_len,
	size_t transb_len);
void zgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
	const double _Complex *alpha, const double _Complex *a, const int *lda, const double _Complex *b,
	const int *ldb, const double _Complex *beta, double _Complex *c, const int *ldc, size_t transa_len,
	size_t transb_len);
void ssymm_(const char *side, const char *uplo, const int *m, const int *n, const float *alpha,
	const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
	const int *ldc, size_t side_len, size_t uplo_len);
void dsymm_(const char *side, const char *uplo, const int *m, const int *n, const double *alpha,
	const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
	const int *ldc, size_t side_len, size_t uplo_len);
void csymm_(const char *side, const char *uplo, const int *m, const int *n,
	const float _Complex *alpha, const float _Complex *a, const int *lda, const float _Complex *b,
	const int *ldb, const float _Complex *beta, float _Complex *c, const int *ldc, size_t side_len,
	size_t uplo_len);
void zsymm_(const char *side, const char *uplo, const int *m, const int *n,
	const double _Complex *alpha, const double _Complex *a, const int *lda, const double _Complex *b,
	const int *ldb, const double _Complex *beta, double _Complex *c, const int *ldc, size_t side_len,
	size_t uplo_len);
void chemm_(const char *side, const char *uplo, const int *m, const int *n,
	const float _Complex *alpha, const float _Complex *a, const int *lda, const float _Complex *b,
	const int *ldb, const float _Complex *beta, float _Complex *c, const int *ldc, size_t side_len,
	size_t uplo_len);
void zhemm_(const char *side, const char *uplo, const int *m, const int *n,
	const double _Complex *alpha, const double _Complex *a, const int *lda, const double _Complex *b,
	const int *ldb, const double _Complex *beta, double _Complex *c, const int *ldc, size_t side_len,
	size_t uplo_len);
void ssyrk_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
	const float *a, const int *lda, const float *beta, float *c, const int *ldc, size_t uplo_len,
	size_t trans_len);
void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
	const double *a, const int *lda, const double *beta, double *c, const int *ldc, size_t uplo_len,
	size_t trans_len);
void csyrk_(const char *uplo, const char *trans, const int *n, const int *k,
	const float _Complex *alpha, const float _Complex *a, const int *lda, const float _Complex *beta,
	float _Complex *c, const int *ldc, size_t uplo_len, size_t trans_len);
void zsyrk_(const char *uplo, const char *trans, const int *n, const int *k,
	const double _Complex *alpha, const double _Complex *a, const int *lda,
	const double _Complex *beta, double _Complex *c, const int *ldc, size_t uplo_len,
	size_t trans_len);
void cherk_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
	const float _Complex *a, const int *lda, const float *beta, float _Complex *c, const int *ldc,
	size_t uplo_len, size_t trans_len);
void zherk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
	const double _Complex *a, const int *lda, const double *beta, double _Complex *c, const int *ldc,
	size_t uplo_len, size_t trans_len);
void ssyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
	const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
	const int *ldc, size_t uplo_len, size_t trans_len);
void dsyr2k_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
	const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
	const int *ldc, size_t uplo_len, size_t trans_len);
void csyr2k_(const char *uplo, const char *trans, const int *n, const int *k,
	const float _Complex *alpha, const float _Complex *a, const int *lda, const float _Complex *b,
	const int *ldb, const float _Complex *beta, float _Complex *c, const int *ldc, size_t uplo_len,
	size_t trans_len);
void zsyr2k_(const char *uplo, const char *trans, const int *n, const int *k,
	const double _Complex *alpha, const double _Complex *a, const int *lda, const double _Complex *b,
	const int *ldb, const double _Complex *beta, double _Complex *c, const int *ldc, size_t uplo_len,
	size_t trans_len);
void cher2k_(const char *uplo, const char *trans, const int *n, const int *k,
	const float _Complex *alpha, const float _Complex *a, const int *lda, const float _Complex *b,
	const int *ldb, const float *beta, float _Complex *c, const int *ldc, size_t uplo_len,
	size_t trans_len);
void zher2k_(const char *uplo, const char *trans, const int *n, const int *k,
	const double _Complex *alpha, const double _Complex *a, const int *lda, const double _Complex *b,
	const int *ldb, const double *beta, double _Complex *c, const int *ldc, size_t uplo_len,
	size_t trans_len);
void strmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
	const int *n, const float *alpha, const float *a, const int *lda, float *b, const int *ldb,
	size_t side_len, size_t uplo_len, size_t transa_len, size_t diag_len);
void dtrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
	const int *n, const double *alpha, const double *a, const int *lda, double *b, const int *ldb,
	size_t side_len, size_t uplo_len, size_t transa_len, size_t diag_len);
void ctrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
	const int *n, const float _Complex *alpha, const float _Complex *a, const int *lda,
	float _Complex *b, const int *ldb, size_t side_len, size_t uplo_len, size_t transa_len,
	size_t diag_len);
void ztrmm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
	const int *n, const double _Complex *alpha, const double _Complex *a, const int *lda,
	double _Complex *b, const int *ldb, size_t side_len, size_t uplo_len, size_t transa_len,
	size_t diag_len);
void strsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
	const int *n, const float *alpha, const float *a, const int *lda, float *b, const int *ldb,
	size_t side_len, size_t uplo_len, size_t transa_len, size_t diag_len);
void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
	const int *n, const double *alpha, const double *a, const int *lda, double *b, const int *ldb,
	size_t side_len, size_t uplo_len, size_t transa_len, size_t diag_len);
void ctrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
	const int *n, const float _Complex *alpha, const float _Complex *a, const int *lda,
	float _Complex *b, const int *ldb, size_t side_len, size_t uplo_len, size_t transa_len,
	size_t diag_len);
void ztrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
	const int *n, const double _Complex *alpha, const double _Complex *a, const int *lda,
	double _Complex *b, const int *ldb, size_t side_len, size_t uplo_len, size_t transa_len,
	size_t diag_len);

/* Auxiliary routines */
int lsame_(const char *ca, const char *cb, size_t ca_len, size_t cb_len);
void xerbla_(const char *srname, const int *info, size_t srname_len);
void xerbla_array_(const char *srname_array, const int *srname_len, const int *info,
	size_t srname_array_len);

#ifdef __cplusplus
}
#endif
#endif /* DYL_PROFILE_BLAS_H */
