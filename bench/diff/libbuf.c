/* Calls as cheap as a call can be, so that what a wrapper adds is all there is to see:
 * peek reads one element of its input buffer, poke writes one of its output buffer. */
#include "buf.h"
long peek(const double *x, long n) { return n ? (long)x[n / 2] : 0; }
void poke(double *y, long n) { if (n) y[n / 2] += 1; }
