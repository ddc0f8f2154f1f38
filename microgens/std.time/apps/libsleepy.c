/* libsleepy.c - the library of test_std_time.py: a sleep and a spin */
#include "sleepy.h"
#include <unistd.h>
void sleepy(int us) { usleep(us); }
long spin(long n) { volatile long s = 0; for (long i = 0; i < n; i++) s += i; return s; }
