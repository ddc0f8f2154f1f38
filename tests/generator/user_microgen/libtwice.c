/* libtwice.c - the library of test_user_microgen.py */
#include "twice.h"
int twice(int x) { return 2 * x; }
