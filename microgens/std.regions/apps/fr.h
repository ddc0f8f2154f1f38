/* fr.h - the library of test_std_regions_frames.py */
double take(const double *x);
