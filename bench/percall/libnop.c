#include "nop.h"
int nop(int x) { return x + 1; }
