/* args.h - the library of test_std_args.py: arguments of many kinds */
typedef struct { int x, y; } point;
double scale(const int *n, const double *alpha, double *y, const char *trans, point p, unsigned long k);
