/* rl.h - a tiny "device" library for dyl-speedup's residency tests: each function reads
 * its const buffers and writes its other one (std.flow sees the extents) */
#ifndef RL_H
#define RL_H
/* y = A x, A n x n (row-major) */
void mv(const double *a, const double *x, double *y, int n);
/* y = 2 x + 1 */
void twice(const double *x, double *y, int n);
/* the sum of x (left on the host in the tests: it has no model) */
double total(const double *x, int n);
#endif
