/* app.c - test_std_papi.py's program: 5 calls of growing work */
#include <stdio.h>
#include "papi_w.h"
int main(void) { long s = 0; for (int i = 1; i <= 5; i++) s += work(100000L * i); printf("%ld\n", s); return 0; }
