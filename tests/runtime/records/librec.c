/* librec.c - the library of test_records.py: rec calls itself through the GOT */
#include "rec.h"
long rec(int n, int k);
long (*volatile rec_again)(int, int) = rec;
long rec(int n, int k) { return n > 0 ? 1 + rec_again(n - 1, k) : k; }
