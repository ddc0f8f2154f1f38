/* app.c - test_records.py's program: 8 calls of rec at depth 0, then a chain of them */
#include <stdio.h>
#include <stdlib.h>
#include "rec.h"
int main(int argc, char **argv) {
	long sum = 0;
	for (int k = 0; k < 8; k++)
		sum += rec(0, k);		/* one call each: the sizes below */
	sum += rec(atoi(argv[1]), 99);		/* a chain of wrapped calls */
	printf("%ld\n", sum);
	return 0;
}
