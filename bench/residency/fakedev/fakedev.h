/* fakedev.h - a "device" of our own for issue 24's validation: memory kept apart from the
 * program's (fd_malloc), copies across a pretend link that count their bytes and
 * transfers (fd_h2d, fd_d2h) and may take a link model's time, and BLAS kernels that
 * compute on the device copies only.  A program ported by hand onto it says what a careful
 * port moves; dyl-speedup's residency prediction from the plain program must say the same.
 *
 * Environment:
 *   FAKEDEV_REPORT=FILE  at exit, write the counts to FILE (key=value lines: h2d_bytes,
 *                        h2d_transfers, h2d_ns, h2d_wall_ns, d2h_...; *_ns the link
 *                        model's times, *_wall_ns what the copies took, waits included)
 *   FAKEDEV_LINK=MODEL   a link model (rows @h2d,work,t_ns and @d2h,...: models/link-*.csv):
 *                        each copy lasts at least its modelled time (waits it out, the
 *                        memcpy inside it), and h2d_ns and d2h_ns sum the modelled times
 *   FAKEDEV_NOWAIT=1     with FAKEDEV_LINK: sum the modelled times, do not wait
 *   FAKEDEV_WAIT=cpu     after the memcpy, burn the modelled time as the thread's CPU time
 *                        (a loaded machine wakes a sleep late): the port's CPU time is then
 *                        its own work, its copies' and the link's time
 */
#ifndef FAKEDEV_H
#define FAKEDEV_H

#include <stddef.h>
#include <stdint.h>

/* Device memory: a mapping of its own per block, never the program's heap.  NULL when out
 * of memory.  fd_free(NULL) does nothing. */
void *fd_malloc(size_t bytes);
void fd_free(void *dev);

/* One transfer each: BYTES from host memory to device memory, or back.  0, or -1 (with a
 * message on stderr) when the device side is not inside one device block. */
int fd_h2d(void *dev, const void *host, size_t bytes);
int fd_d2h(void *host, const void *dev, size_t bytes);

/* What has crossed the link so far. */
struct fd_counts {
	uint64_t h2d_bytes, h2d_transfers, d2h_bytes, d2h_transfers;
	double h2d_ns, d2h_ns;		/* the link model's times (0 without FAKEDEV_LINK) */
};
void fd_get_counts(struct fd_counts *out);

/* Kernels on device memory, as the Fortran BLAS computes them (column-major; the
 * scalars by value, as a device library takes them).  Every array must be device memory:
 * a host pointer stops the program with a message (a port that forgot a copy). */
void fd_dgemv(char trans, int m, int n, double alpha, const double *a, int lda,
	      const double *x, int incx, double beta, double *y, int incy);
void fd_dgemm(char transa, char transb, int m, int n, int k, double alpha, const double *a,
	      int lda, const double *b, int ldb, double beta, double *c, int ldc);
void fd_daxpy(int n, double alpha, const double *x, int incx, double *y, int incy);

#endif
