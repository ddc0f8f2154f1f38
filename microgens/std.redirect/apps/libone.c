/* libone.c - f, g and h at version V1 (one.map) */
#include "one.h"
int f(int x) { return x + 1; }
int g(int x) { return x + 2; }
int h(int x) { return x + 3; }
