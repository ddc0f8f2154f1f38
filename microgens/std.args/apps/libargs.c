/* libargs.c - the library of test_std_args.py */
#include <string.h>
#include "args.h"
double scale(const int *n, const double *alpha, double *y, const char *trans, point p, unsigned long k)
{ for (int i = 0; i < *n; i++) y[i] *= *alpha; return y[0] + p.x + k + (*trans == 'T'); }
int named(const char *name, const char *mode, unsigned long mode_len)
{ return (int)strlen(name) + (mode_len && *mode == 'N'); }
#include <errno.h>
int tag(const char *s)
{ return s ? errno : -1; }	/* the errno the program set: the wrapper must keep it */
