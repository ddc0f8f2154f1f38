/* dd.h - the library of test_std_diff.py: calls that read, write or both */
long sum(const double *x, int n);
void fill(double *y, int n, double v);
void scale(double *x, int n, double f);
long both(const double *a, const double *b, double *c, int n);
int rows(const char *const *lines, int n);
int bump(char **lines, int n);
long outer(const double *x, int n);
long churn(int n);
