/* fill.h - the library of test_std_defs.py */
int fill(unsigned char *out, const unsigned char *in, int n);
