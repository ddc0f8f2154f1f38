/* cs.h - the library test_std_callsite.py calls from known lines */
long cs_work(long n);
