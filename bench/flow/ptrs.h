/* ptrs.h - calls with 1, 3 and 10 pointer arguments (bench/flow/) */
long p1(const double *a);
long p3(const double *a, const double *b, double *c);
long p10(const double *a, const double *b, const double *c, const double *d, const double *e,
	 double *f, double *g, double *h, double *i, double *j);
