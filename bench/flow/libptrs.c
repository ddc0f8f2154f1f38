/* libptrs.c - ptrs.h: functions that touch one element of each buffer */
#include "ptrs.h"

long p1(const double *a)
{
	return (long)a[0];
}

long p3(const double *a, const double *b, double *c)
{
	c[0] = a[0] + b[0];
	return 0;
}

long p10(const double *a, const double *b, const double *c, const double *d, const double *e,
	 double *f, double *g, double *h, double *i, double *j)
{
	f[0] = a[0];
	g[0] = b[0];
	h[0] = c[0];
	i[0] = d[0];
	j[0] = e[0];
	return 0;
}
