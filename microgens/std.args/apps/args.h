/* args.h - the library of test_std_args.py: arguments of many kinds */
typedef struct { int x, y; } point;
double scale(const int *n, const double *alpha, double *y, const char *trans, point p, unsigned long k);
/* a C string, and a Fortran character with its hidden length (mode_len) */
int named(const char *name, const char *mode, unsigned long mode_len);
/* a C string the library never reads (test_bad_pointers passes bad ones) */
int tag(const char *s);
