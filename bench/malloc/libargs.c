#include "args.h"
long three(const double *a, const double *b, double *c) { c[0] = a[0] + b[0]; return 0; }
long one(const char *s) { return s[0]; }
