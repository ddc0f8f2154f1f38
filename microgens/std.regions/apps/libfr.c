/* libfr.c - the library of test_std_regions_frames.py */
#include "fr.h"
double take(const double *x) { return x[0]; }
