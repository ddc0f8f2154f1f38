long peek(const double *x, long n);
void poke(double *y, long n);
