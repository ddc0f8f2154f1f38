/* app.c - test_std_redirect.py's program, linked against libone */
#include <stdio.h>
#include "one.h"
int main(void) { printf("%d %d %d\n", f(0), g(0), h(0)); return 0; }
