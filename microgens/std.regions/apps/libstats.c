/* libstats.c - static objects in a library that is not the wrapped one, built stripped
 * (test_std_regions.py) */
double sts_pub[40] = { 1 };
double sts_after[6] = { 2 };
double *sts_pub_ptr(void) { return sts_pub; }
