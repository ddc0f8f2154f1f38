/* libinc.c - the library of test_install.py */
#include "inc.h"
int inc(int x) { return x + 1; }
