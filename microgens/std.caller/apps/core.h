/* core.h - the library of test_core.py: a struct returned by value, errno set */
struct big { double v[5]; };
struct big mk(double x);
int fails(int e);
