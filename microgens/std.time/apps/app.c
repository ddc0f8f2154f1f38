/* app.c - test_std_time.py's program: 3 sleeps of 20 ms, then a spin */
#include <stdio.h>
#include "sleepy.h"
int main(void) { for (int i = 0; i < 3; i++) sleepy(20000); printf("%ld\n", spin(20000000)); return 0; }
