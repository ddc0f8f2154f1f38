/* inc.h - the library of test_install.py */
int inc(int x);
