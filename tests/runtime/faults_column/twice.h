/* twice.h - the library of test_faults_column.py */
int twice(int x);
