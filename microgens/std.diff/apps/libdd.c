/* libdd.c - the library of test_std_diff.py */
#include "dd.h"
long sum(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i]; return (long)s; }
void fill(double *y, int n, double v) { for (int i = 0; i < n; i++) y[i] = v; }
void scale(double *x, int n, double f) { for (int i = 0; i < n; i++) x[i] *= f; }
long both(const double *a, const double *b, double *c, int n) { for (int i = 0; i < n; i++) c[i] = a[i] + b[i]; return n; }
int rows(const char *const *lines, int n) { int t = 0; for (int i = 0; i < n; i++) t += lines[i][0]; return t; }
int bump(char **lines, int n) { for (int i = 0; i < n; i++) lines[i][0]++; return n; }
/* a wrapped call inside a wrapped call (resolved through the wrapper: not -Bsymbolic) */
long outer(const double *x, int n) { return sum(x, n); }
/* leaves N bytes of its own below its caller's frame: data of no later frame's */
long churn(int n) { volatile char buf[8192]; for (int i = 0; i < n && i < 8192; i++) buf[i] = (char)(i * 7 + 1); return buf[n / 2]; }
