/* twice.h - the library of test_user_microgen.py */
int twice(int x);
