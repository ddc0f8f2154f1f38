/* hr.h - a tiny library for std.flow's host-read tests: a call writes a buffer, another
 * reads it */
#ifndef HR_H
#define HR_H
void hr_fill(double *out, long n, double v);
double hr_sum(const double *in, long n);
void hr_tick(int k);
#endif
