/* regs.h - the library of test_std_regions.py */
long sum(const double *x, int n);
void fill(double *y, int n, double v);
long both(const double *a, const double *b, double *c, int n);
int rows(const char *const *lines, int n);
int bump(char **lines, int n);
long two(const double *x, const double *y);
int letter(const char *s);
