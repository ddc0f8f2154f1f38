/* progs.h - what the programs written twice share (bench/residency/progs/: NAME_plain.c
 * calls the host BLAS as any program does, NAME_port.c is the same computation ported by
 * hand onto fakedev).  Arrays are page-aligned and whole pages long, so std.flow's host
 * reads can watch them (an output sharing a page with another object is "assumed read",
 * which a port would not copy back). */
#ifndef PROGS_H
#define PROGS_H

#include <stdio.h>
#include <stdlib.h>

void dgemv_(const char *trans, const int *m, const int *n, const double *alpha,
	    const double *a, const int *lda, const double *x, const int *incx,
	    const double *beta, double *y, const int *incy, size_t trans_len);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
	    const double *alpha, const double *a, const int *lda, const double *b,
	    const int *ldb, const double *beta, double *c, const int *ldc, size_t la, size_t lb);
void daxpy_(const int *n, const double *alpha, const double *x, const int *incx, double *y,
	    const int *incy);

/* COUNT doubles, page-aligned, rounded up to whole pages; stops the program when out of
 * memory (these are benchmarks: there is nothing better to do). */
static inline double *pages_of_doubles(size_t count)
{
	size_t bytes = (count * sizeof(double) + 4095) & ~(size_t)4095;
	void *p = NULL;
	if (posix_memalign(&p, 4096, bytes ? bytes : 4096) != 0) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

/* A deterministic fill, the same in both versions. */
static inline void fill(double *a, size_t count, int salt)
{
	for (size_t i = 0; i < count; i++)
		a[i] = 1.0 / (1 + (i * 7 + (size_t)salt) % 13);
}

static inline double sum(const double *a, size_t count)
{
	double s = 0;
	for (size_t i = 0; i < count; i++)
		s += a[i];
	return s;
}

static inline int arg(int argc, char **argv, int i, int dflt)
{
	return argc > i ? atoi(argv[i]) : dflt;
}

#endif
