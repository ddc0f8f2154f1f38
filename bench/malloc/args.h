long three(const double *a, const double *b, double *c);
long one(const char *s);
