/* dw.h - the library of test_std_regions_dwarf.py */
double take(const int *n, const double *x, double *y);
