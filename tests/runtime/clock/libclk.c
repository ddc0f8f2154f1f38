/* libclk.c - the library of test_clock.py: a sleep and a short call */
#include <unistd.h>
#include "clk.h"
void sleepy(int us) { usleep(us); }
int tick(int x) { return x + 1; }
