/* one.h - the two libraries of test_std_redirect.py: libone.c and libtwo.c */
int f(int x);
int g(int x);
int h(int x);
