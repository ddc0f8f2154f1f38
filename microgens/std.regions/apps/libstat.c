/* libstat.c - static objects in a library that is not the wrapped one
 * (test_std_regions.py) */
/* PRIV, the size of stat_priv, is given with -DPRIV= (another for libstat2.so: a "new
 * version" of the library) */
double stat_pub[40] = { 1 };
__attribute__((used)) static double stat_priv[PRIV] = { 2 };
double stat_after[3] = { 3 };
__attribute__((used)) static double stat_priv_after[5] = { 4 };
double *stat_pub_ptr(void) { return stat_pub; }
double *stat_priv_ptr(void) { return stat_priv; }
