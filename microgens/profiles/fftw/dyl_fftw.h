/* dyl_fftw.h - the work of an FFT for the fftw profile's --defs blocks (fftw.defs):
 * benchFFT's operation count, 5 N log2 N for a complex transform of N points and
 * 2.5 N log2 N for a real one (http://www.fftw.org/speed/method.html), times the
 * transforms a plan makes (howmany).  A count from the sizes alone: the same for every
 * build and CPU, so a model made on one machine keys the calls of another.
 *
 * log2 without libm (the wrapper does not link it): exact for powers of two. */
#ifndef DYL_FFTW_H
#define DYL_FFTW_H
#include <stdint.h>

static inline double dyl_fftw_log2(double x)
{
	double y, y2, t, s = 0;
	int e = 0;

	if (x <= 1)
		return 0;
	while (x >= 2) {
		x /= 2;
		e++;
	}
	/* ln x = 2 atanh((x - 1) / (x + 1)) for x in [1, 2): |y| < 1/3, 30 terms are plenty */
	y = (x - 1) / (x + 1);
	y2 = y * y;
	t = y;
	for (int k = 1; k < 60; k += 2) {
		s += t / k;
		t *= y2;
	}
	return e + 2 * s / 0.69314718055994530942;
}

/* PER (5 complex, 2.5 real) * N log2 N * HOWMANY, rounded; 0 for a plan of nothing */
static inline int64_t dyl_fftw_work(double per, uint64_t n, int64_t howmany)
{
	if (n == 0 || howmany <= 0)
		return 0;
	return (int64_t)(per * (double)n * dyl_fftw_log2((double)n) * (double)howmany + 0.5);
}
#endif
