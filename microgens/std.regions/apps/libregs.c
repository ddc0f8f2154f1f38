/* libregs.c - the library of test_std_regions.py: calls that read, write or both */
#include "regs.h"
long sum(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i]; return (long)s; }
void fill(double *y, int n, double v) { for (int i = 0; i < n; i++) y[i] = v; }
long both(const double *a, const double *b, double *c, int n) { for (int i = 0; i < n; i++) c[i] = a[i] + b[i]; return n; }
int rows(const char *const *lines, int n) { int t = 0; for (int i = 0; i < n; i++) t += lines[i][0]; return t; }
int bump(char **lines, int n) { for (int i = 0; i < n; i++) lines[i][0]++; return n; }
long two(const double *x, const double *y) { return (long)(*x + *y); }
int letter(const char *s) { return s[0]; }
