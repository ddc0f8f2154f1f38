/* app.c - test_user_microgen.py's program: 10 calls of twice */
#include <stdio.h>
#include "twice.h"
int main(void) { int s = 0; for (int i = 0; i < 10; i++) s += twice(i); printf("%d\n", s); return 0; }
