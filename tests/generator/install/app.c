/* app.c - test_install.py's program: 7 calls of inc */
#include <stdio.h>
#include "inc.h"
int main(void) { int s = 0; for (int i = 0; i < 7; i++) s = inc(s); printf("%d\n", s); return 0; }
