/* libpapi_w.c - the library of test_std_papi.py: work in proportion to n */
#include "papi_w.h"
long work(long n) { volatile long s = 0; for (long i = 0; i < n; i++) s += i; return s; }
