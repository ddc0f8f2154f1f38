/* fort.h - the library of test_std_regions_frames.py's Fortran-style call */
void solve_(const int *n, double *b, int *info);
