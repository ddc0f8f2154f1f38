/* papi_w.h - the library of test_std_papi.py */
long work(long n);
