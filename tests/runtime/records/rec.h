/* rec.h - the library of test_records.py */
long rec(int n, int k);
