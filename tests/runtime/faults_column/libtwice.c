/* libtwice.c - the library of test_faults_column.py */
#include "twice.h"
int twice(int x) { return 2 * x; }
