/* app.c - test_std_defs.py's program: fill on 1, 4, ... 4096 bytes */
#include <stdio.h>
#include <stdlib.h>
#include "fill.h"
int main(int argc, char **argv) {
	unsigned char a[4096], b[4096]; long sum = 0;
	for (int i = 0; i < 4096; i++) a[i] = (unsigned char)i;
	for (int n = 1; n <= 4096; n *= 4) { sum += fill(b, a, n); sum += b[n - 1]; }
	printf("%ld\n", sum);
	return 0;
}
